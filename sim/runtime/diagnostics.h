// Diagnostics of the engine's sanitizers and the exception that carries them.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace marlin::sim {

enum class DiagnosticKind : std::uint8_t {
  kOutOfBounds,        // device/constant buffer or threadgroup memory
  kThreadgroupRace,    // two threads, same bytes, no barrier between, one writes
  kUninitializedRead,  // threadgroup memory read before any thread wrote it
  kBarrierDivergence,  // threads waiting at a barrier/collective others never reach
  kKernelError,        // anything else the kernel did wrong (e.g. unbound argument size)
};

const char* diagnostic_kind_name(DiagnosticKind kind);

struct Diagnostic {
  DiagnosticKind kind = DiagnosticKind::kKernelError;
  std::string kernel;
  std::array<std::uint32_t, 3> threadgroup{};
  std::array<std::uint32_t, 3> thread{};        // thread_position_in_threadgroup
  std::array<std::uint32_t, 3> other_thread{};  // races: the other thread
  std::uint16_t buffer = 0;                     // buffer index or kThreadgroupBufferId
  std::string region;                           // parameter or declaration name
  std::int64_t offset = 0;                      // byte offset in the region
  std::uint32_t bytes = 0;
  std::string message;  // one line, complete
};

// Thrown by launch() when a kernel produced diagnostics (and the launch asked for it).
class KernelFault : public std::runtime_error {
 public:
  explicit KernelFault(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// Internal: unwinds a lane (or a collective) after a fatal diagnostic was recorded.
struct LaneAbort {};

}  // namespace marlin::sim
