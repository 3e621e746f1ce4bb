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

// Replays `launch` on one core with two threadgroup slots one instruction per step and issuing
// ahead, expects the same results and sink calls, and returns what the sink saw of the latter.
testing::RecordingSink replayed_both_ways(const sim::LaunchTrace& launch, Cycles* total) {
  model::DeviceSpec device = testing::test_device();
  device.gpu.cores = 1;
  const LaunchInput input = testing::input_of(launch, 2);
  TimingOptions stepwise;
  stepwise.batch_alu_runs = false;
  testing::RecordingSink step_sink;
  testing::RecordingSink batch_sink;
  const TimingResult a = GpuTimingModel(device, stepwise).run(input, &step_sink);
  const TimingResult b = GpuTimingModel(device, TimingOptions{}).run(input, &batch_sink);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(log_of(step_sink) == log_of(batch_sink));
  *total = b.total_cycles;
  return batch_sink;
}

// Issuing ahead past a simdgroup held at a barrier stops where the barrier may release. On
// one core, threadgroup 0's simdgroup 0 waits at a barrier from cycle 0; threadgroup 1's
// simdgroup 0 shares its scheduler with a run of 60 FP16 FMAs, one a cycle, from cycle 1 (the
// test device's threadgroup barrier costs 5 cycles). Returns the cycle the waiting simdgroup
// issued its next op in, the same either way the replay steps.
Cycles released_issue(const std::vector<sim::TraceOp>& other_simdgroup) {
  sim::LaunchTrace launch = testing::launch_of(2, 128);
  testing::add_simdgroup(launch, 0, 0).ops = {testing::simple_op(sim::OpClass::kThreadgroupBarrier),
                                              testing::alu_op(sim::AluKind::kFp16Fma, 1)};
  testing::add_simdgroup(launch, 0, 1).ops = other_simdgroup;
  testing::add_simdgroup(launch, 1, 0).ops = {testing::alu_op(sim::AluKind::kFp16Fma, 60)};
  Cycles total;
  const testing::RecordingSink sink = replayed_both_ways(launch, &total);
  EXPECT_EQ(total, Cycles(61 + 4));  // the run gives one cycle to the released op
  for (const testing::StateInterval& s : sink.states_of(0, 0)) {
    if (s.state == StallClass::kIssuing && s.begin > 0) return Cycles(s.begin);
  }
  return Cycles(-1);
}

// Simdgroup 1 arrives at cycle 12 after twelve one-instruction ops and the release comes 5
// cycles later. The shared scheduler, bounded by the barrier, issues ahead from cycles 0, 5
// and 10 to 14, then from 15 to the release; one cycle more from 0 on would reach 12, where it
// is visited before simdgroup 1's scheduler, and 17 from there.
TEST(AluRunBatching, StopsWhereAnArrivalMayReleaseABarrier) {
  std::vector<sim::TraceOp> ops(12, testing::alu_op(sim::AluKind::kFp16Fma, 1));
  ops.push_back(testing::simple_op(sim::OpClass::kThreadgroupBarrier));
  ops.insert(ops.end(), 20, testing::alu_op(sim::AluKind::kFp16Fma, 1));
  EXPECT_EQ(released_issue(ops), Cycles(17));
}

// Simdgroup 1 never reaches the barrier: it finishes with the last of 13 FP16 FMAs at cycle 12,
// which releases the barrier at once (the last arrival was at 0, 0 + 5 cycles before), sooner
// than an arrival could. Cycle 12 went to the run before the release, 13 to the released op.
TEST(AluRunBatching, StopsWhereAFinishingSimdgroupMayReleaseABarrier) {
  EXPECT_EQ(released_issue({testing::alu_op(sim::AluKind::kFp16Fma, 13)}), Cycles(13));
}

// Issuing ahead stops where a dispatch may fill a slot of the scheduler: the new simdgroup
// takes the cycles the others leave. On one core with two slots, threadgroup 0's simdgroup 0
// issues 100 FP32 FMAs, one every 2 cycles from cycle 0; threadgroup 1's one integer add
// issues at cycle 1 and completes at 4, when threadgroup 2 takes its slot. Its integer add
// issues in cycle 5, between two of the FMAs, whichever way the replay steps.
TEST(AluRunBatching, StopsWhereADispatchMayFillASlot) {
  sim::LaunchTrace launch = testing::launch_of(3, 128);
  testing::add_simdgroup(launch, 0, 0).ops = {testing::alu_op(sim::AluKind::kFp32Fma, 100)};
  testing::add_simdgroup(launch, 1, 0).ops = {testing::alu_op(sim::AluKind::kIntAdd, 1)};
  testing::add_simdgroup(launch, 2, 0).ops = {testing::alu_op(sim::AluKind::kIntAdd, 1)};
  Cycles total;
  const testing::RecordingSink sink = replayed_both_ways(launch, &total);
  EXPECT_EQ(total, Cycles(198 + 6));  // the last FMA's latency after its issue
  // Threadgroup 2 runs in slot 1, whose simdgroup 0 is simdgroup slot 4.
  const std::vector<testing::StateInterval> slot = sink.states_of(0, 4);
  EXPECT_TRUE(std::find(slot.begin(), slot.end(),
                        testing::StateInterval{0, 4, StallClass::kIssuing, 5, 6}) != slot.end());
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
