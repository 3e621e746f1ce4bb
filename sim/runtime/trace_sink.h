// ThreadgroupTraceSink: receives a launch's per-simdgroup traces threadgroup by threadgroup as
// the engine's workers finish them, instead of the launch keeping them all (LaunchOptions::
// trace_sink). A consumer can then replay a launch while the engine still runs it, and hold only
// the threadgroups it needs at a time.
//
// Contract, for a launch with a sink:
// - begin_launch() is called once, after the launch is validated and before any put().
// - put() is called once per threadgroup of the grid, from any thread of the launch, with the
//   threadgroup's linear index (x fastest) and its simdgroups' traces in simdgroup order. The
//   workers take threadgroups in increasing linear order; the threadgroups whose traces are a
//   translation (below) are put by one more thread, in increasing order, as soon as the
//   launch knows them, ahead of the workers that run them. So a sink may block a put() until
//   its consumer has taken earlier threadgroups, provided the consumer takes those without
//   waiting for later ones. A put() that throws stops the launch with that exception. put() returns
//   the traces whose vectors it did not keep (their contents unspecified): the worker that
//   made them builds its next threadgroup's traces in them, so their memory is not given
//   back to the system and faulted in again for every threadgroup.
// - put_translated() may stand for put() of a threadgroup whose traces are a translation of
//   another's (trace_translation.h): `base`'s traces with the offset of each access record,
//   but the stride records of affine runs, moved by its buffer's shift in `shifts` (buffers
//   not listed move by 0) and `position` as their threadgroup. `base` stays valid and
//   unchanged until the launch ends. The order rules are put()'s. A sink that returns false
//   (the default) has taken nothing: the engine then builds the traces and calls put().
// - abort() is called, from the failing worker and possibly more than once, when the launch
//   stops before every threadgroup was put (an exception in a worker, or in put()). Other
//   workers may still call put() until they notice; a sink should make those return or throw
//   at once rather than wait. Thread-safe.
// The launch's own LaunchResult::trace then carries the header fields and no simdgroups.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/runtime/trace.h"

namespace marlin::sim {

// What a launch's traces will be, known before any threadgroup runs: LaunchTrace without its
// simdgroups.
struct LaunchHeader {
  std::string kernel;
  std::array<std::uint32_t, 3> threadgroups_per_grid{};
  std::array<std::uint32_t, 3> threads_per_threadgroup{};
  std::uint64_t threadgroup_memory_bytes = 0;

  // Threadgroups in the grid, threads in a threadgroup.
  std::uint64_t threadgroup_count() const { return volume(threadgroups_per_grid); }
  std::uint64_t thread_count() const { return volume(threads_per_threadgroup); }

 private:
  static std::uint64_t volume(const std::array<std::uint32_t, 3>& v) {
    return std::uint64_t{v[0]} * v[1] * v[2];
  }
};

class ThreadgroupTraceSink {
 public:
  virtual ~ThreadgroupTraceSink() = default;
  virtual void begin_launch(const LaunchHeader& header) = 0;
  virtual std::vector<SimdgroupTrace> put(std::uint32_t threadgroup,
                                          std::vector<SimdgroupTrace> traces) = 0;
  virtual bool put_translated(std::uint32_t /*threadgroup*/,
                              const std::vector<SimdgroupTrace>& /*base*/,
                              std::span<const BufferShift> /*shifts*/,
                              std::array<std::uint32_t, 3> /*position*/) {
    return false;
  }
  virtual void abort() noexcept = 0;
};

}  // namespace marlin::sim
