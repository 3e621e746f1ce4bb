// TraceBudget: bounds the host memory a launch's per-simdgroup traces take, so that a launch
// too large for the host stops with a clear error instead of exhausting memory.
//
// Contract: the engine's workers call account() with each threadgroup's traces as the
// threadgroup finishes, and its position in the launch's run order (thread-safe). account()
// throws TraceLimitExceeded (an InputError) when the traces accounted so far exceed the
// limit, or, early, once the first kProbeThreadgroups in run order are accounted, when the
// launch's threadgroups at the size of the smallest of those would need more than
// kEstimateMargin times the limit. The estimate assumes the threadgroups alike; the margin
// keeps a launch whose first threadgroups are its largest (the striped kernel with under two
// work units per threadgroup) from being refused unless its limit is within 1.5 times of what
// it needs. Sizes count each trace's ops and accesses (what the host holds at least), so
// whether a launch is refused does not depend on the number of workers; how far it got
// before, and so the message, may. A limit of 0 accounts nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "model/common/input_error.h"
#include "sim/runtime/trace.h"

namespace marlin::sim {

class TraceLimitExceeded : public InputError {
 public:
  explicit TraceLimitExceeded(const std::string& message) : InputError(message) {}
};

// Heap bytes of one simdgroup's trace, and of one threadgroup's.
std::uint64_t trace_bytes(const SimdgroupTrace& trace);
std::uint64_t trace_bytes(const std::vector<SimdgroupTrace>& threadgroup_traces);

class TraceBudget {
 public:
  // `threadgroups`: how many the launch runs; `kernel` names it in the error.
  TraceBudget(std::uint64_t limit_bytes, std::uint64_t threadgroups, std::string kernel)
      : limit_(limit_bytes), threadgroups_(threadgroups), kernel_(std::move(kernel)) {}

  // Threadgroups whose size makes the early estimate.
  static constexpr std::uint64_t kProbeThreadgroups = 8;
  static constexpr double kEstimateMargin = 1.5;

  void account(std::uint64_t position, const std::vector<SimdgroupTrace>& threadgroup_traces);

 private:
  std::uint64_t limit_;
  std::uint64_t threadgroups_;
  std::string kernel_;
  std::atomic<std::uint64_t> total_{0};
  std::atomic<std::uint64_t> accounted_{0};
  std::atomic<std::uint64_t> probed_{0};  // of the first kProbeThreadgroups
  std::atomic<std::uint64_t> smallest_probe_{std::numeric_limits<std::uint64_t>::max()};
};

}  // namespace marlin::sim
