// ALU runs issued in one step (TimingOptions::batch_alu_runs) give exactly the results of
// issuing them one scheduler step at a time: a differential test on pseudo-random launches
// (ALU runs of every kind, threadgroup and device loads, stores, barriers, matrix multiplies),
// comparing every result field, every counter and every event-sink call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "model/timing/gpu_timing_model.h"
#include "tests/timing/replay_differential.h"
#include "tests/timing/timing_fixtures.h"

namespace marlin::timing {
namespace {

using testing::log_of;
using testing::random_launch;

// Seeds 1-60: up to 10 threadgroups, 1-3 resident per core. Seeds 61-300: up to 24, 1-4
// resident (several waves on the 2-core device; up to 8 simdgroups per scheduler, of
// different ages, some held at barriers while others run).
TEST(AluRunBatching, SameResultsAsOneInstructionPerStep) {
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const bool dense = seed > 60;
    const sim::LaunchTrace launch = random_launch(seed, dense ? 24 : 10);
    const int resident = 1 + static_cast<int>(seed % (dense ? 4 : 3));
    const LaunchInput input = testing::input_of(launch, resident);
    const IssuePolicy policy =
        seed % 2 == 0 ? IssuePolicy::kOldestFirst : IssuePolicy::kGreedyThenOldest;
    model::DeviceSpec device = testing::test_device();
    if (seed % 4 == 1) device.memory.l1_bytes_per_cycle = 64;  // exercise the ports too
    if (seed % 4 == 3) device.memory.l2_bytes_per_cycle = 96;
    TimingOptions stepwise{.issue_policy = policy, .counter_window = Cycles(50)};
    stepwise.batch_alu_runs = false;
    TimingOptions batched = stepwise;
    batched.batch_alu_runs = true;
    testing::RecordingSink step_sink;
    testing::RecordingSink batch_sink;
    const TimingResult a = GpuTimingModel(device, stepwise).run(input, &step_sink);
    const TimingResult b = GpuTimingModel(device, batched).run(input, &batch_sink);
    ASSERT_EQ(a, b) << "seed " << seed;
    ASSERT_TRUE(log_of(step_sink) == log_of(batch_sink)) << "seed " << seed;
    // Without a sink the breakdown is added in bulk: still the same.
    EXPECT_EQ(GpuTimingModel(device, batched).run(input), a) << "seed " << seed;
    ++compared;
  }
  EXPECT_EQ(compared, 300);
}

// A lone simdgroup's run is issued in one step: 40 FP32 FMAs (throughput 2, latency 6) take
// 39 x 2 + 6 = 84 cycles, 40 issuing and 39 x 1 pipe-busy cycles before the last latency.
TEST(AluRunBatching, LoneRunKeepsItsCycleCount) {
  sim::LaunchTrace launch = testing::launch_of(1, 32);
  testing::add_simdgroup(launch, 0, 0).ops = {testing::alu_op(sim::AluKind::kFp32Fma, 40)};
  testing::RecordingSink sink;
  const TimingResult r =
      GpuTimingModel(testing::test_device()).run(testing::input_of(launch), &sink);
  EXPECT_EQ(r.total_cycles, Cycles(84));
  EXPECT_EQ(r.breakdown[StallClass::kIssuing], 40);
  EXPECT_EQ(r.breakdown[StallClass::kAluBusy], 39 + 5);  // between issues, then the latency
  EXPECT_EQ(r.instructions, 40);
  const std::vector<testing::StateInterval> states = sink.states_of(0, 0);
  ASSERT_EQ(states.size(), 2u * 39 + 2);  // issuing / busy alternate, then the final wait
  EXPECT_EQ(states[1], (testing::StateInterval{0, 0, StallClass::kAluBusy, 1, 2}));
  EXPECT_EQ(states.back(), (testing::StateInterval{0, 0, StallClass::kAluBusy, 79, 84}));
}

}  // namespace
}  // namespace marlin::timing
