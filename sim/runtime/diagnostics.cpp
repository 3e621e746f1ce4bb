#include "sim/runtime/diagnostics.h"

#include <fmt/format.h>

#include <utility>

namespace marlin::sim {

const char* diagnostic_kind_name(DiagnosticKind kind) {
  switch (kind) {
    case DiagnosticKind::kOutOfBounds:
      return "out-of-bounds";
    case DiagnosticKind::kThreadgroupRace:
      return "threadgroup-race";
    case DiagnosticKind::kUninitializedRead:
      return "uninitialized-read";
    case DiagnosticKind::kBarrierDivergence:
      return "barrier-divergence";
    case DiagnosticKind::kKernelError:
      return "kernel-error";
  }
  return "?";
}

namespace {
std::string summary(const std::vector<Diagnostic>& diagnostics) {
  if (diagnostics.empty()) return "kernel fault";
  if (diagnostics.size() == 1) return diagnostics.front().message;
  return fmt::format("{} (and {} more diagnostics)", diagnostics.front().message,
                     diagnostics.size() - 1);
}
}  // namespace

KernelFault::KernelFault(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(summary(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace marlin::sim
