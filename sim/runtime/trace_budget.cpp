#include "sim/runtime/trace_budget.h"

#include <fmt/format.h>

#include <algorithm>

namespace marlin::sim {
namespace {

double megabytes(std::uint64_t bytes) { return static_cast<double>(bytes) / 1e6; }

}  // namespace

std::uint64_t trace_bytes(const SimdgroupTrace& trace) {
  return sizeof(SimdgroupTrace) + trace.ops.size() * sizeof(TraceOp) +
         trace.accesses.size() * sizeof(MemAccess);
}

std::uint64_t trace_bytes(const std::vector<SimdgroupTrace>& threadgroup_traces) {
  std::uint64_t bytes = 0;
  for (const SimdgroupTrace& trace : threadgroup_traces) bytes += trace_bytes(trace);
  return bytes;
}

void TraceBudget::account(std::uint64_t position,
                          const std::vector<SimdgroupTrace>& threadgroup_traces) {
  if (limit_ == 0) return;
  const std::uint64_t bytes = trace_bytes(threadgroup_traces);
  const std::uint64_t total = total_ += bytes;
  const std::uint64_t accounted = ++accounted_;
  if (total > limit_) {
    throw TraceLimitExceeded(fmt::format(
        "kernel '{}': the traces of {} of its {} threadgroups take {:.1f} MB, over the trace "
        "limit of {:.1f} MB",
        kernel_, accounted, threadgroups_, megabytes(total), megabytes(limit_)));
  }
  if (position >= kProbeThreadgroups) return;
  std::uint64_t smallest = smallest_probe_.load();
  while (bytes < smallest && !smallest_probe_.compare_exchange_weak(smallest, bytes)) {
  }
  // The worker accounting the last probe sees every probe's size.
  const std::uint64_t probes = std::min(kProbeThreadgroups, threadgroups_);
  if (++probed_ != probes) return;
  smallest = smallest_probe_.load();
  const double estimate = static_cast<double>(smallest) * static_cast<double>(threadgroups_);
  if (estimate > kEstimateMargin * static_cast<double>(limit_)) {
    throw TraceLimitExceeded(fmt::format(
        "kernel '{}': the traces of its {} threadgroups would take about {:.0f} MB ({:.2f} MB "
        "for the smallest of the first {}), over {} times the trace limit of {:.1f} MB",
        kernel_, threadgroups_, estimate / 1e6, megabytes(smallest), probes, kEstimateMargin,
        megabytes(limit_)));
  }
}

}  // namespace marlin::sim
