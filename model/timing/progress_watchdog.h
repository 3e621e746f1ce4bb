// ProgressWatchdog: turns a replay loop that keeps stepping without progress (a livelock,
// which only a bookkeeping bug can cause) into an InvariantError instead of a hang.
//
// Contract: the loop calls step() once per step with a count that grows whenever anything
// happens (an instruction issues, a threadgroup is dispatched or ends). After more than
// `max_idle_steps` consecutive steps with the same count, step() throws InvariantError naming
// the cycle the loop had reached. The replay's legitimate idle runs are a few steps long (a
// scheduler waiting a cycle or two for the threadgroup-memory grant): the largest seen over
// the test suite and the CLI's runs is 16, far below kReplayMaxIdleSteps.
#pragma once

#include <cstdint>
#include <string>

#include "model/common/invariant.h"
#include "model/timing/cycles.h"

namespace marlin::timing {

inline constexpr std::int64_t kReplayMaxIdleSteps = std::int64_t{1} << 20;

class ProgressWatchdog {
 public:
  explicit ProgressWatchdog(std::int64_t max_idle_steps = kReplayMaxIdleSteps)
      : max_idle_steps_(max_idle_steps) {}

  void step(std::int64_t progress, Cycles t) {
    if (progress != last_progress_) {
      last_progress_ = progress;
      idle_steps_ = 0;
      return;
    }
    if (++idle_steps_ > max_idle_steps_) fail(t);
  }

 private:
  [[noreturn]] void fail(Cycles t) const {
    invariant_failed("idle_steps_ <= max_idle_steps_", __FILE__, __LINE__,
                     "the replay makes progress: " + std::to_string(idle_steps_) +
                         " steps up to cycle " + std::to_string(t.count()) +
                         " issued no instruction and dispatched or ended no threadgroup");
  }

  std::int64_t max_idle_steps_;
  std::int64_t last_progress_ = -1;
  std::int64_t idle_steps_ = 0;
};

}  // namespace marlin::timing
