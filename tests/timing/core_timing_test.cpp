// Exact cycle counts of the schedulers and pipes on synthetic one-threadgroup launches. The
// device is testing::test_device(); every expected number is worked out in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "model/common/input_error.h"
#include "model/timing/gpu_timing_model.h"
#include "tests/timing/timing_fixtures.h"

namespace marlin::timing {
namespace {

using sim::AluKind;
using sim::OpClass;
using testing::add_simdgroup;
using testing::alu_op;
using testing::input_of;
using testing::launch_of;
using testing::simple_op;
using testing::StateInterval;

constexpr std::int64_t kFp32Throughput = 2;
constexpr std::int64_t kFp32Latency = 6;
constexpr std::int64_t kNoStartCost = 0;  // dispatch overhead 0: threadgroups start at cycle 0

TEST(CoreTimingTest, DependentFmaChainTakesNTimesLatency) {
  constexpr int kN = 10;
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  for (int i = 0; i < kN; ++i) sg.ops.push_back(alu_op(AluKind::kFp32Fma, 1, i - 1));
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // Op i issues when op i-1 completes: at i * 6; the last completes at 10 * 6 = 60.
  EXPECT_EQ(r.total_cycles, Cycles(kNoStartCost + kN * kFp32Latency));
  EXPECT_EQ(r.launches[0].instructions, kN);
  // One issue cycle per op, the rest waits on the ALU result.
  EXPECT_EQ(r.breakdown[StallClass::kIssuing], kN);
  EXPECT_EQ(r.breakdown[StallClass::kAluBusy], kN * kFp32Latency - kN);
  // Core 1 never gets a threadgroup: its one slot is tail for the whole launch.
  EXPECT_EQ(r.breakdown[StallClass::kTail], kN * kFp32Latency);
}

TEST(CoreTimingTest, IndependentFmaRunIsThroughputBound) {
  constexpr int kN = 10;
  sim::LaunchTrace run = launch_of(1, 32);
  add_simdgroup(run, 0, 0).ops.push_back(alu_op(AluKind::kFp32Fma, kN));
  // The same work as kN separate ops without dependencies.
  sim::LaunchTrace separate = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(separate, 0, 0);
  for (int i = 0; i < kN; ++i) sg.ops.push_back(alu_op(AluKind::kFp32Fma, 1));
  const GpuTimingModel model(testing::test_device());
  // Issues at 0, 2, ..., 18; the last result at 18 + 6 = 24.
  const std::int64_t expected = kNoStartCost + (kN - 1) * kFp32Throughput + kFp32Latency;
  EXPECT_EQ(model.run(input_of(run)).total_cycles, Cycles(expected));
  const TimingResult r = model.run(input_of(separate));
  EXPECT_EQ(r.total_cycles, Cycles(expected));
  // Between issues the FP pipe is busy 1 cycle; after the last issue 5 cycles of latency.
  EXPECT_EQ(r.breakdown[StallClass::kIssuing], kN);
  EXPECT_EQ(r.breakdown[StallClass::kAluBusy], (kN - 1) * (kFp32Throughput - 1) + kFp32Latency - 1);
}

// An ALU run whose trace records a dependent chain (TraceOp::chain).
sim::TraceOp chained_run(AluKind kind, std::uint16_t count, std::uint32_t chain) {
  sim::TraceOp op = alu_op(kind, count);
  op.chain = chain;
  return op;
}

TEST(CoreTimingTest, ChainedRunTakesChainTimesLatency) {
  constexpr int kN = 10;
  sim::LaunchTrace launch = launch_of(1, 32);
  add_simdgroup(launch, 0, 0).ops.push_back(chained_run(AluKind::kFp32Fma, kN, kN));
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // Issues at 0, 2, ..., 18 (the pipe's throughput); a chain of 10 completes no sooner than
  // 10 x 6 = 60 after the first issue: as the 10 dependent ops of DependentFmaChain...
  EXPECT_EQ(r.total_cycles, Cycles(kNoStartCost + kN * kFp32Latency));
  EXPECT_EQ(r.launches[0].instructions, kN);
  EXPECT_EQ(r.breakdown[StallClass::kIssuing], kN);
  EXPECT_EQ(r.breakdown[StallClass::kAluBusy], kN * kFp32Latency - kN);
}

TEST(CoreTimingTest, ShortChainLeavesTheRunThroughputBound) {
  const GpuTimingModel model(testing::test_device());
  for (const std::uint32_t chain : {0U, 1U, 3U, 4U, 5U, 10U}) {
    sim::LaunchTrace launch = launch_of(1, 32);
    add_simdgroup(launch, 0, 0).ops.push_back(chained_run(AluKind::kFp32Fma, 10, chain));
    // Last issue 18, result at 24; a chain of c completes at 6c: 0, 6, 18, 24, 30, 60.
    const std::int64_t issue_bound = 9 * kFp32Throughput + kFp32Latency;
    const std::int64_t chain_bound = static_cast<std::int64_t>(chain) * kFp32Latency;
    EXPECT_EQ(model.run(input_of(launch)).total_cycles,
              Cycles(kNoStartCost + std::max(issue_bound, chain_bound)))
        << "chain " << chain;
  }
}

TEST(CoreTimingTest, ChainDoesNotHoldLaterIndependentOps) {
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  sg.ops.push_back(chained_run(AluKind::kFp32Fma, 4, 4));
  sg.ops.push_back(alu_op(AluKind::kFp32Fma, 1));  // independent of the chain
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // The run issues at 0, 2, 4, 6; the independent FMA at 8 (FP pipe), done at 14. The chain
  // completes at 4 x 6 = 24, which ends the simdgroup.
  EXPECT_EQ(r.total_cycles, Cycles(kNoStartCost + 4 * kFp32Latency));
  EXPECT_EQ(r.launches[0].instructions, 5);
}

TEST(CoreTimingTest, ChainLongerThanItsRunIsRefused) {
  sim::LaunchTrace launch = launch_of(1, 32);
  add_simdgroup(launch, 0, 0).ops.push_back(chained_run(AluKind::kFp32Fma, 4, 5));
  EXPECT_THROW(GpuTimingModel(testing::test_device()).run(input_of(launch)), InputError);
}

TEST(CoreTimingTest, ChainCountsFromItsSegmentsFirstIssue) {
  const GpuTimingModel model(testing::test_device());
  // Runs of one segment: 10 independent int adds (issues 0..9), then 4 FMAs in one chain
  // (issues 10, 12, 14, 16; last result 22). The chain began with the segment at cycle 0:
  // 4 x 6 = 24, not 10 + 24 = 34.
  sim::LaunchTrace together = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(together, 0, 0);
  sg.ops.push_back(alu_op(AluKind::kIntAdd, 10));
  sg.ops.push_back(chained_run(AluKind::kFp32Fma, 4, 4));
  EXPECT_EQ(model.run(input_of(together)).total_cycles, Cycles(kNoStartCost + 24));
  // A simdgroup barrier between them starts a new segment at the FMAs' first issue: the
  // barrier issues at 10 and holds the next op 2 cycles (test device), so 12 + 24 = 36.
  sim::LaunchTrace apart = launch_of(1, 32);
  sim::SimdgroupTrace& sg2 = add_simdgroup(apart, 0, 0);
  sg2.ops.push_back(alu_op(AluKind::kIntAdd, 10));
  sg2.ops.push_back(simple_op(OpClass::kSimdBarrier));
  sg2.ops.push_back(chained_run(AluKind::kFp32Fma, 4, 4));
  EXPECT_EQ(model.run(input_of(apart)).total_cycles, Cycles(kNoStartCost + 12 + 24));
}

// The replay keeps the completion cycles of a slot's newest ops in a ring (4096 entries at
// most); a trace whose deps reach further back keeps them all. Here op 4097 depends on op 0,
// and op 4096, a load of a cold line, would share op 0's place in a ring of 4096. Int adds
// (throughput 1, latency 3) issue one per cycle: ops 0..4096 at cycles 0..4096, op 4097 at
// 4097 (op 0 completed at 3), the last of the 2000 adds after it at 6097, done at 6100; the
// load (issued at 4096) is back long before that. Had op 4097 waited for the load, it would
// start at 4096 + the load's latency instead.
TEST(CoreTimingTest, DepBeyondTheRingWaitsForItsOwnOp) {
  constexpr int kBefore = 4096;
  constexpr int kAfter = 2000;
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  for (int i = 0; i < kBefore; ++i) sg.ops.push_back(alu_op(AluKind::kIntAdd, 1));
  testing::add_memory_op(sg, OpClass::kDeviceLoad, 0, 0, 4, 4);
  sg.ops.push_back(alu_op(AluKind::kIntAdd, 1, 0));
  for (int i = 0; i < kAfter; ++i) sg.ops.push_back(alu_op(AluKind::kIntAdd, 1));
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  EXPECT_EQ(r.total_cycles, Cycles(kNoStartCost + kBefore + 1 + kAfter + 3));
}

TEST(CoreTimingTest, IndependentMatrixMultipliesOnOneScheduler) {
  constexpr int kM = 8;
  constexpr std::int64_t kMmaThroughput = 17;
  constexpr std::int64_t kMmaLatency = 34;
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  for (int i = 0; i < kM; ++i) sg.ops.push_back(simple_op(OpClass::kMatrixMultiply));
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // Issues at 0, 17, ..., 119; the last result at 119 + 34 = 153.
  EXPECT_EQ(r.total_cycles, Cycles((kM - 1) * kMmaThroughput + kMmaLatency));
  EXPECT_EQ(r.breakdown[StallClass::kMatrixBusy], (kM - 1) * kMmaThroughput + kMmaLatency - kM);
  // Matrix utilization: 8 * 17 FP-pipe cycles over 2 cores * 4 schedulers * 153 cycles.
  EXPECT_DOUBLE_EQ(r.utilization.matrix, (kM * 17.0) / (2 * 4 * 153.0));
}

TEST(CoreTimingTest, DependentMatrixMultipliesWaitForTheAccumulator) {
  constexpr int kM = 4;
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  for (int i = 0; i < kM; ++i) sg.ops.push_back(simple_op(OpClass::kMatrixMultiply, i - 1));
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  EXPECT_EQ(r.total_cycles, Cycles(kM * 34));
}

TEST(CoreTimingTest, MatrixMultiplyHoldsTheFpPipe) {
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  sg.ops.push_back(simple_op(OpClass::kMatrixMultiply));
  sg.ops.push_back(alu_op(AluKind::kFp16Fma, 1));  // independent, but the FP pipe is held
  sg.ops.push_back(alu_op(AluKind::kIntAdd, 1));   // integer pipe: free
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // MMA at 0 (done 34); FMA at 17 (done 21); int add at 18 (done 21). End: 34.
  EXPECT_EQ(r.total_cycles, Cycles(34));
  // The FMA's wait [1, 17) is charged to the matrix pipe; the end [19, 34) too (the MMA result).
  EXPECT_EQ(r.breakdown[StallClass::kMatrixBusy], 16 + 15);
  EXPECT_EQ(r.breakdown[StallClass::kIssuing], 3);
}

TEST(CoreTimingTest, TwoSimdgroupsOnOneSchedulerHideLatency) {
  // 256 threads = 8 simdgroups; slots 0 and 4 share scheduler 0. Only they have work:
  // a chain of 4 dependent FP16 FMAs (1 cycle throughput, 4 latency) each.
  sim::LaunchTrace launch = launch_of(1, 256);
  for (std::uint32_t s : {0u, 4u}) {
    sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, s);
    for (int i = 0; i < 4; ++i) sg.ops.push_back(alu_op(AluKind::kFp16Fma, 1, i - 1));
  }
  testing::RecordingSink sink;
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch), &sink);
  // Slot 0 (older) issues at 0, 4, 8, 12 -> done 16. Slot 4 loses cycle 0 to it and issues at
  // 1, 5, 9, 13 -> done 17. Twice the work in 17 cycles instead of 32.
  EXPECT_EQ(r.total_cycles, Cycles(17));
  EXPECT_EQ(r.breakdown[StallClass::kIssueWait], 1);
  const std::vector<StateInterval> slot4 = sink.states_of(0, 4);
  ASSERT_GE(slot4.size(), 2u);
  EXPECT_EQ(slot4[0], (StateInterval{0, 4, StallClass::kIssueWait, 0, 1}));
  EXPECT_EQ(slot4[1], (StateInterval{0, 4, StallClass::kIssuing, 1, 2}));
}

TEST(CoreTimingTest, BarrierMakesTheFasterSimdgroupWait) {
  // Two simdgroups of one threadgroup (slots 0 and 1, schedulers 0 and 1).
  // Simdgroup 0: FMA, barrier, FMA. Simdgroup 1: 3 dependent FMAs, barrier (after the third),
  // FMA.
  sim::LaunchTrace launch = launch_of(1, 64);
  sim::SimdgroupTrace& fast = add_simdgroup(launch, 0, 0);
  fast.ops = {alu_op(AluKind::kFp32Fma, 1), simple_op(OpClass::kThreadgroupBarrier),
              alu_op(AluKind::kFp32Fma, 1)};
  sim::SimdgroupTrace& slow = add_simdgroup(launch, 0, 1);
  slow.ops = {alu_op(AluKind::kFp32Fma, 1), alu_op(AluKind::kFp32Fma, 1, 0),
              alu_op(AluKind::kFp32Fma, 1, 1), simple_op(OpClass::kThreadgroupBarrier, 2),
              alu_op(AluKind::kFp32Fma, 1)};
  testing::RecordingSink sink;
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch), &sink);
  // Fast arrives at cycle 1; slow issues FMAs at 0, 6, 12 and arrives at 18. Release at
  // 18 + 5 (barrier cost) = 23; both issue their last FMA at 23, done 29.
  constexpr std::int64_t kFastArrival = 1;
  constexpr std::int64_t kSlowArrival = 18;
  constexpr std::int64_t kBarrierCost = 5;
  constexpr std::int64_t kRelease = kSlowArrival + kBarrierCost;
  EXPECT_EQ(r.total_cycles, Cycles(kRelease + kFp32Latency));
  // The fast simdgroup waits from its arrival to the release: the difference plus the cost.
  const std::vector<StateInterval> fast_states = sink.states_of(0, 0);
  const std::vector<StateInterval> expected_fast = {
      {0, 0, StallClass::kIssuing, 0, 2},  // FMA at 0, barrier at 1
      {0, 0, StallClass::kBarrierWait, kFastArrival + 1, kRelease},
      {0, 0, StallClass::kIssuing, kRelease, kRelease + 1},
      {0, 0, StallClass::kAluBusy, kRelease + 1, kRelease + kFp32Latency}};
  EXPECT_EQ(fast_states, expected_fast);
  EXPECT_EQ(kRelease - kFastArrival, (kSlowArrival - kFastArrival) + kBarrierCost);
  // The slow one waits only the barrier cost after its arrival cycle.
  const std::vector<StateInterval> slow_states = sink.states_of(0, 1);
  ASSERT_EQ(slow_states.size(), 10u);
  EXPECT_EQ(slow_states[7], (StateInterval{0, 1, StallClass::kBarrierWait, 19, kRelease}));
  EXPECT_EQ(r.breakdown[StallClass::kBarrierWait], (kRelease - 2) + (kRelease - 19));
  EXPECT_EQ(r.breakdown.total(), r.launches[0].slot_cycles);
}

TEST(CoreTimingTest, SimdgroupBarrierCostsItsCycles) {
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  sg.ops = {simple_op(OpClass::kSimdBarrier), alu_op(AluKind::kIntAdd, 1)};
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // Barrier at 0 costs 2: the add issues at 2 and completes at 2 + 3 = 5.
  EXPECT_EQ(r.total_cycles, Cycles(5));
  EXPECT_EQ(r.breakdown[StallClass::kBarrierWait], 1);  // cycle 1 (cycle 0 is its issue)
}

// Slot 0: FP16 FMA A, then B depending on A (ready at 4). Slot 4 (same scheduler): a run of 6
// independent integer adds (1 cycle throughput, 3 latency).
sim::LaunchTrace policy_launch() {
  sim::LaunchTrace launch = launch_of(1, 256);
  add_simdgroup(launch, 0, 0).ops = {alu_op(AluKind::kFp16Fma, 1), alu_op(AluKind::kFp16Fma, 1, 0)};
  add_simdgroup(launch, 0, 4).ops = {alu_op(AluKind::kIntAdd, 6)};
  return launch;
}

TEST(CoreTimingTest, OldestFirstReturnsToTheOlderSimdgroup) {
  const sim::LaunchTrace launch = policy_launch();
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // A at 0; adds at 1, 2, 3; B at 4 (oldest and ready, done 8); adds at 5, 6, 7 (done 10).
  EXPECT_EQ(r.total_cycles, Cycles(10));
}

TEST(CoreTimingTest, GreedyThenOldestStaysWithTheLastIssuer) {
  const sim::LaunchTrace launch = policy_launch();
  const GpuTimingModel model(testing::test_device(),
                             TimingOptions{.issue_policy = IssuePolicy::kGreedyThenOldest});
  // A at 0; adds at 1..6 (done 9); B only at 7 (done 11).
  EXPECT_EQ(model.run(input_of(launch)).total_cycles, Cycles(11));
}

TEST(CoreTimingTest, IssuePolicyComesFromTheProfileUnlessOverridden) {
  const sim::LaunchTrace launch = policy_launch();
  model::DeviceSpec device = testing::test_device();
  device.gpu.issue_policy = IssuePolicy::kGreedyThenOldest;
  // The profile's greedy policy: 11 cycles as above; the option overrides it back to 10.
  EXPECT_EQ(GpuTimingModel(device).run(input_of(launch)).total_cycles, Cycles(11));
  const GpuTimingModel oldest(device, TimingOptions{.issue_policy = IssuePolicy::kOldestFirst});
  EXPECT_EQ(oldest.run(input_of(launch)).total_cycles, Cycles(10));
}

TEST(CoreTimingTest, BarrierDoesNotWaitForAFinishedSimdgroup) {
  sim::LaunchTrace launch = launch_of(1, 64);
  add_simdgroup(launch, 0, 0).ops = {alu_op(AluKind::kFp32Fma, 1),
                                     simple_op(OpClass::kThreadgroupBarrier),
                                     alu_op(AluKind::kFp32Fma, 1)};
  add_simdgroup(launch, 0, 1).ops = {alu_op(AluKind::kFp32Fma, 1)};  // never reaches a barrier
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // Simdgroup 1 issued everything at 0. Simdgroup 0 arrives at 1, released at 1 + 5 = 6;
  // its FMA at 6 is done at 12.
  EXPECT_EQ(r.total_cycles, Cycles(12));
}

}  // namespace
}  // namespace marlin::timing
