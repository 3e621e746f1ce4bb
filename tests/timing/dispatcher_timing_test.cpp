// The dispatcher (threadgroups to cores, waves, tail, overhead, launch sequences), the stall
// breakdown's accounting, determinism and input errors of the core timing model.
#include <gtest/gtest.h>

#include <vector>

#include "model/common/input_error.h"
#include "model/timing/gpu_timing_model.h"
#include "tests/timing/timing_fixtures.h"

namespace marlin::timing {
namespace {

using sim::AluKind;
using sim::OpClass;
using testing::add_memory_op;
using testing::add_simdgroup;
using testing::alu_op;
using testing::input_of;
using testing::launch_of;
using testing::simple_op;
using testing::ThreadgroupRecord;

// `count` threadgroups of one simdgroup each doing one FP32 FMA (issue, then 6 cycles).
sim::LaunchTrace one_fma_per_threadgroup(std::uint32_t count) {
  sim::LaunchTrace launch = launch_of(count, 32);
  for (std::uint32_t tg = 0; tg < count; ++tg) {
    add_simdgroup(launch, tg, 0).ops.push_back(alu_op(AluKind::kFp32Fma, 1));
  }
  return launch;
}

TEST(DispatcherTimingTest, PartialLastWave) {
  model::DeviceSpec device = testing::test_device();
  device.dispatch.dispatch_overhead_s = 50e-9;  // 50 cycles at 1 GHz
  const sim::LaunchTrace launch = one_fma_per_threadgroup(5);
  testing::RecordingSink sink;
  const TimingResult r = GpuTimingModel(device).run(input_of(launch, /*resident=*/2), &sink);
  // Overhead [0, 50). At 50: tg0 -> core 0, tg1 -> core 1, tg2 -> core 0, tg3 -> core 1 (the
  // core with the most free slots, ties to the lower index). All end at 56; tg4 -> core 0
  // slot 0 at 56, ends at 62.
  constexpr std::int64_t kOverhead = 50;
  constexpr std::int64_t kWork = 6;
  const LaunchResult& l = r.launches[0];
  EXPECT_EQ(r.total_cycles, Cycles(kOverhead + 2 * kWork));
  EXPECT_EQ(l.overhead, Cycles(kOverhead));
  EXPECT_EQ(l.waves, 2);
  EXPECT_EQ(l.last_wave_threadgroups, 1);
  EXPECT_EQ(l.tail_cycles, Cycles(kWork));  // from 56, three slots have nothing left to run
  // Reported at their ends, in (end, core, slot) order.
  const std::vector<ThreadgroupRecord> expected = {{0, 0, 0, 0, 50, 56},
                                                   {0, 0, 1, 2, 50, 56},
                                                   {0, 1, 0, 1, 50, 56},
                                                   {0, 1, 1, 3, 50, 56},
                                                   {0, 0, 0, 4, 56, 62}};
  EXPECT_EQ(sink.threadgroups, expected);
  // 4 slots * 62 cycles = 248 = 5 issue + 5 * 5 ALU + 4 * 50 overhead idle + 3 * 6 tail.
  EXPECT_EQ(l.slot_cycles, 4 * 62);
  EXPECT_EQ(l.breakdown[StallClass::kIssuing], 5);
  EXPECT_EQ(l.breakdown[StallClass::kAluBusy], 5 * (kWork - 1));
  EXPECT_EQ(l.breakdown[StallClass::kIdle], 4 * kOverhead);
  EXPECT_EQ(l.breakdown[StallClass::kTail], 3 * kWork);
  EXPECT_EQ(l.breakdown.total(), l.slot_cycles);
  // Resident simdgroups of core 0: 1, 2 at cycle 50; 1, 0 at 56, then 1 (tg4); 0 at 62.
  std::vector<std::int64_t> core0;
  for (const auto& c : sink.counters) {
    if (c.counter == TimingCounter::kResidentSimdgroups && c.core == 0) core0.push_back(c.value);
  }
  EXPECT_EQ(core0, (std::vector<std::int64_t>{1, 2, 1, 0, 1, 0}));
  // Resident simdgroup-cycles 5 * 6 = 30 over 2 cores * 12 execution cycles.
  EXPECT_DOUBLE_EQ(l.achieved_simdgroups_per_core, 30.0 / 24.0);
}

TEST(DispatcherTimingTest, FullWavesHaveNoTail) {
  const sim::LaunchTrace launch = one_fma_per_threadgroup(8);
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch, 2));
  EXPECT_EQ(r.total_cycles, Cycles(12));
  EXPECT_EQ(r.launches[0].waves, 2);
  EXPECT_EQ(r.launches[0].last_wave_threadgroups, 4);
  EXPECT_EQ(r.launches[0].tail_cycles, Cycles(0));
  EXPECT_EQ(r.breakdown[StallClass::kTail], 0);
}

TEST(DispatcherTimingTest, DependentLaunchesRunBackToBackWithOverhead) {
  model::DeviceSpec device = testing::test_device();
  device.dispatch.dispatch_overhead_s = 10e-9;       // 10 cycles
  device.dispatch.command_buffer_overhead_s = 1e-6;  // 1000 cycles
  const sim::LaunchTrace compute = one_fma_per_threadgroup(5);
  const sim::LaunchTrace reduce = one_fma_per_threadgroup(1);
  std::vector<LaunchInput> launches = {input_of(compute, 2), input_of(reduce, 2)};
  launches[0].new_command_buffer = true;
  launches[0].useful_flops = 1000;
  launches[1].useful_flops = 24;
  const TimingResult r = GpuTimingModel(device).run(launches);
  // Compute: 1000 + 10 overhead + 12 = 1022. Reduce: starts at 1022, 10 + 6 = 16.
  ASSERT_EQ(r.launches.size(), 2u);
  EXPECT_EQ(r.launches[0].cycles, Cycles(1022));
  EXPECT_EQ(r.launches[1].begin, Cycles(1022));
  EXPECT_EQ(r.launches[1].cycles, Cycles(16));
  EXPECT_EQ(r.total_cycles, Cycles(1038));
  EXPECT_DOUBLE_EQ(r.seconds, 1038e-9);
  EXPECT_DOUBLE_EQ(r.achieved_flops_per_s, 1024.0 / 1038e-9);
  EXPECT_EQ(r.breakdown.total(), r.launches[0].slot_cycles + r.launches[1].slot_cycles);
}

// A launch with every kind of op, several threadgroups and waves.
sim::LaunchTrace mixed_launch() {
  sim::LaunchTrace launch = launch_of(7, 96);  // 3 simdgroups per threadgroup
  for (std::uint32_t tg = 0; tg < 7; ++tg) {
    for (std::uint32_t s = 0; s < 3; ++s) {
      sim::SimdgroupTrace& sg = add_simdgroup(launch, tg, s);
      add_memory_op(sg, OpClass::kDeviceLoad, 0, (tg * 3 + s) * 512, 16, 4);  // op 0
      add_memory_op(sg, OpClass::kThreadgroupStore, sim::kThreadgroupBufferId, s * 128, 4, 4,
                    0);                                                                     // op 1
      sg.ops.push_back(simple_op(OpClass::kThreadgroupBarrier));                            // op 2
      add_memory_op(sg, OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId, 0, 8, 4, 2);  // 3
      sg.ops.push_back(alu_op(AluKind::kFp16Fma, static_cast<std::uint16_t>(4 + s), 3));    // 4
      sg.ops.push_back(simple_op(OpClass::kMatrixMultiply));                                // op 5
      sg.ops.push_back(simple_op(OpClass::kMatrixMultiply, 5));                             // op 6
      sg.ops.push_back(simple_op(OpClass::kReduction, 6));                                  // op 7
      add_memory_op(sg, OpClass::kDeviceStore, 1, tg * 128, 4, 4, 7);                       // op 8
    }
  }
  return launch;
}

TEST(DispatcherTimingTest, BreakdownSumsToSlotCyclesAndRunsAreDeterministic) {
  const sim::LaunchTrace launch = mixed_launch();
  for (const IssuePolicy policy : {IssuePolicy::kOldestFirst, IssuePolicy::kGreedyThenOldest}) {
    const GpuTimingModel model(testing::test_device(), TimingOptions{.issue_policy = policy});
    testing::RecordingSink sink;
    const TimingResult first = model.run(input_of(launch, 2), &sink);
    const TimingResult second = model.run(input_of(launch, 2));
    EXPECT_TRUE(first == second);
    const LaunchResult& l = first.launches[0];
    EXPECT_EQ(l.slot_cycles, 2 * 2 * 3 * first.total_cycles.count());
    EXPECT_EQ(l.breakdown.total(), l.slot_cycles);
    // 8 single instructions per simdgroup plus the FMA run of 4 + s instructions.
    EXPECT_EQ(l.instructions, 7 * (3 * 8 + 4 + 5 + 6));
    EXPECT_EQ(l.waves, 2);
    EXPECT_GT(first.breakdown[StallClass::kBarrierWait], 0);
    // The sink's states of each threadgroup cover its slots' cycles exactly, nested inside.
    std::int64_t state_cycles = 0;
    for (const auto& s : sink.states) state_cycles += s.end - s.begin;
    std::int64_t tg_cycles = 0;
    for (const auto& t : sink.threadgroups) tg_cycles += 3 * (t.end - t.begin);
    EXPECT_EQ(state_cycles, tg_cycles);
    for (const auto& s : sink.states) {
      bool nested = false;
      for (const auto& t : sink.threadgroups) {
        nested |= t.core == s.core && s.slot / 3 == t.slot && t.begin <= s.begin && s.end <= t.end;
      }
      EXPECT_TRUE(nested) << "state [" << s.begin << ", " << s.end << ") of slot " << s.slot;
    }
  }
}

TEST(DispatcherTimingTest, RejectsBadInput) {
  const GpuTimingModel model(testing::test_device());
  sim::LaunchTrace launch = one_fma_per_threadgroup(2);
  EXPECT_THROW((void)model.run(input_of(launch, 0)), InputError);
  sim::LaunchTrace bad_dep = one_fma_per_threadgroup(1);
  bad_dep.simdgroups[0].ops[0].dep = 0;  // depends on itself
  EXPECT_THROW((void)model.run(input_of(bad_dep)), InputError);
  sim::LaunchTrace outside = one_fma_per_threadgroup(1);
  outside.simdgroups[0].threadgroup = {3, 0, 0};
  EXPECT_THROW((void)model.run(input_of(outside)), InputError);
  model::DeviceSpec device = testing::test_device();
  device.pipes.fp32_fma.throughput_cycles = 0;
  EXPECT_THROW(GpuTimingModel{device}, InputError);
}

TEST(DispatcherTimingTest, EmptyGridCostsOnlyTheOverhead) {
  model::DeviceSpec device = testing::test_device();
  device.dispatch.dispatch_overhead_s = 7e-9;
  const sim::LaunchTrace launch = launch_of(0, 32);
  const TimingResult r = GpuTimingModel(device).run(input_of(launch));
  EXPECT_EQ(r.total_cycles, Cycles(7));
  EXPECT_EQ(r.launches[0].waves, 0);
  EXPECT_EQ(r.breakdown[StallClass::kIdle], 2 * 7);
}

}  // namespace
}  // namespace marlin::timing
