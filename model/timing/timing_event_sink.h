// TimingEventSink: an optional observer of a timing run, for trace writers (Chrome trace) and
// tests. The model calls it only when one is given; without a sink nothing is recorded.
//
// Contract (all times in core cycles of the run, launches back to back from cycle 0):
// - on_simdgroup_state intervals of one (core, simdgroup slot) never overlap, are contiguous
//   from the threadgroup's begin to its end, merge consecutive cycles of the same class, and lie
//   inside that threadgroup's [begin, end) interval: they nest properly under it. They are
//   reported when closed, so calls for different slots interleave and need not be in time order.
// - on_threadgroup is called once per threadgroup, at its end; [begin, end) never overlaps
//   another threadgroup of the same (core, slot).
// - on_counter samples a counter after a change; values of one (counter, core) come in
//   non-decreasing time order.
// - on_launch is called at the end of each launch with its [begin, end) including overhead.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/timing/cycles.h"
#include "model/timing/stall_class.h"

namespace marlin::timing {

enum class TimingCounter : std::uint8_t {
  kResidentSimdgroups,  // per core: simdgroups of resident threadgroups (simdgroups)
  // Whole device (core = -1): DRAM bytes transferred before cycle `at` since the run began
  // (bytes), at window boundaries where the rate changes and at the end (DramCounter).
  kDramBytes,
};

class TimingEventSink {
 public:
  virtual ~TimingEventSink() = default;

  virtual void on_launch(int launch, std::string_view kernel, Cycles begin, Cycles end) = 0;
  // `threadgroup` is the linear threadgroup index (x fastest); `slot` the core's threadgroup slot.
  virtual void on_threadgroup(int launch, int core, int slot, std::uint32_t threadgroup,
                              Cycles begin, Cycles end) = 0;
  // `simdgroup_slot` = threadgroup slot * simdgroups per threadgroup + simdgroup index.
  virtual void on_simdgroup_state(int core, int simdgroup_slot, StallClass state, Cycles begin,
                                  Cycles end) = 0;
  virtual void on_counter(TimingCounter counter, int core, Cycles at, std::int64_t value) = 0;
};

}  // namespace marlin::timing
