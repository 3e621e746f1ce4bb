// Exact cycle counts of device-memory and threadgroup-memory ops in the core timing model, on
// testing::test_device() (numbers worked out in the comments).
#include <gtest/gtest.h>

#include "model/common/input_error.h"
#include "model/timing/gpu_timing_model.h"
#include "tests/timing/timing_fixtures.h"

namespace marlin::timing {
namespace {

using sim::AluKind;
using sim::OpClass;
using testing::add_memory_op;
using testing::add_simdgroup;
using testing::input_of;
using testing::launch_of;

TEST(MemoryTimingTest, DramBoundStreamIsSetByBandwidth) {
  // One simdgroup issues two loads (cycles 0 and 1); each lane reads 4 bytes 128 bytes apart,
  // so each load touches 32 distinct lines, all cold: 64 lines from DRAM.
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  add_memory_op(sg, OpClass::kDeviceLoad, /*buffer=*/0, 0, 128, 4);
  add_memory_op(sg, OpClass::kDeviceLoad, /*buffer=*/1, 0, 128, 4);
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // DRAM moves 32 B/cycle: a 128-byte line takes 4 cycles. Line k (1-based, in issue order)
  // ends its transfer at 4k and is ready at 4k + 100. The core link (1024 B/cycle, 1/8 cycle a
  // line) and the cache latencies are hidden. The last line, k = 64: 256 + 100 = 356.
  constexpr std::int64_t kLines = 64;
  constexpr std::int64_t kCyclesPerLine = 128 / 32;
  constexpr std::int64_t kDramLatency = 100;
  EXPECT_EQ(r.total_cycles, Cycles(kLines * kCyclesPerLine + kDramLatency));
  EXPECT_EQ(r.launches[0].dram_bytes, kLines * 128);
  EXPECT_DOUBLE_EQ(r.dram_bytes_per_s, (kLines * 128.0) / (356 * 1e-9));
  // Two issue cycles; the rest is memory wait.
  EXPECT_EQ(r.breakdown[StallClass::kIssuing], 2);
  EXPECT_EQ(r.breakdown[StallClass::kMemoryWait], 356 - 2);
  // DRAM busy 256 of 356 cycles.
  EXPECT_DOUBLE_EQ(r.utilization.dram, 256.0 / 356.0);
  EXPECT_EQ(r.hit_rates.l1, 0.0);
}

// Appends a load of 32 lanes at base + lane * stride stored as an affine run (two records).
void add_affine_load(sim::SimdgroupTrace& sg, std::uint16_t buffer, std::uint32_t base,
                     std::uint32_t stride) {
  const auto first = static_cast<std::uint32_t>(sg.accesses.size());
  sg.accesses.push_back(sim::MemAccess{base, buffer, 4, sim::kAffineRun});
  sg.accesses.push_back(sim::MemAccess{stride, 0, 0, 0});
  sg.ops.push_back(sim::TraceOp{
      .op = OpClass::kDeviceLoad, .count = 32, .mask = 0xFFFFFFFFu, .first_access = first});
}

// The loads of DramBoundStreamIsSetByBandwidth, stored as affine runs: the same 64 cold lines,
// the same 356 cycles.
TEST(MemoryTimingTest, AffineRunsReplayAsTheirAccesses) {
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  add_affine_load(sg, 0, 0, 128);
  add_affine_load(sg, 1, 0, 128);
  ASSERT_EQ(sg.accesses.size(), 4u);
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  EXPECT_EQ(r.total_cycles, Cycles(64 * 4 + 100));
  EXPECT_EQ(r.launches[0].dram_bytes, 64 * 128);
}

// An op whose stored accesses run past the list is refused, a run without its stride record
// included.
TEST(MemoryTimingTest, AccessesPastTheListAreRefused) {
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  add_affine_load(sg, 0, 0, 128);
  sg.accesses.pop_back();
  EXPECT_THROW((void)GpuTimingModel(testing::test_device()).run(input_of(launch)), InputError);
  sg.accesses.back().lane = 0;  // now one record for 32 accesses
  EXPECT_THROW((void)GpuTimingModel(testing::test_device()).run(input_of(launch)), InputError);
}

TEST(MemoryTimingTest, StreamBoundByTheSharedL2Port) {
  // Two threadgroups of one simdgroup, one per core, each load 32 distinct cold lines at
  // cycle 0 (lane i reads 4 bytes at base + 128 i). The L2 port is narrowed to 16 B/cycle:
  // 8 cycles a line, against DRAM's 32 B/cycle (4 cycles a line, latency 100) and each core
  // link's 1024 B/cycle. Core 0 is visited first, so its lines are the first 32 in both queues.
  model::DeviceSpec device = testing::test_device();
  device.memory.l2_bytes_per_cycle = 16;
  sim::LaunchTrace launch = launch_of(2, 32);
  add_memory_op(add_simdgroup(launch, 0, 0), OpClass::kDeviceLoad, 0, 0, 128, 4);
  add_memory_op(add_simdgroup(launch, 1, 0), OpClass::kDeviceLoad, 0, 4096, 128, 4);
  const TimingResult r = GpuTimingModel(device).run(input_of(launch));
  // Line k (1-based, over both cores) is ready at max(L2 port 8k, DRAM 4k + 100). Core 1's
  // last line is k = 64: max(512, 356) = 512 (DRAM alone would give 356).
  EXPECT_EQ(r.total_cycles, Cycles(512));
  // 64 lines x 128 B / 16 B per cycle = 512 busy cycles of 512: the port never idles.
  EXPECT_DOUBLE_EQ(r.utilization.l2, 1.0);
  EXPECT_DOUBLE_EQ(r.utilization.l1, 0.0);  // the test device has no L1 port
  // DRAM: 64 lines x 4 cycles = 256 of 512 cycles.
  EXPECT_DOUBLE_EQ(r.utilization.dram, 0.5);
}

TEST(MemoryTimingTest, RepeatedLoadHitsL1) {
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  add_memory_op(sg, OpClass::kDeviceLoad, 0, 0, 4, 4);             // one line, cold: 4 + 100 = 104
  add_memory_op(sg, OpClass::kDeviceLoad, 0, 0, 4, 4, /*dep=*/0);  // issues at 104, L1: +20
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  EXPECT_EQ(r.total_cycles, Cycles(104 + 20));
  EXPECT_DOUBLE_EQ(r.hit_rates.l1, 0.5);
}

TEST(MemoryTimingTest, StoresDoNotBlockTheSimdgroup) {
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  add_memory_op(sg, OpClass::kDeviceStore, 0, 0, 4, 4);    // one line, served by L2 at 0 + 50
  sg.ops.push_back(testing::alu_op(AluKind::kIntAdd, 1));  // issues at 1, done 4
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // The add does not wait; the simdgroup ends when the store is done at L2 (50).
  EXPECT_EQ(r.total_cycles, Cycles(50));
  EXPECT_EQ(r.breakdown[StallClass::kIssuing], 2);
  EXPECT_EQ(r.breakdown[StallClass::kMemoryWait], 48);
}

// One threadgroup load, 32 lanes of 4 bytes at `stride_words` words apart. 32 banks of 4 bytes,
// 128 B/cycle: 128 bytes take 1 cycle of bandwidth, so busy = the bank passes.
std::int64_t threadgroup_load_cycles(std::uint32_t stride_words) {
  sim::LaunchTrace launch = launch_of(1, 32);
  add_memory_op(add_simdgroup(launch, 0, 0), OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId,
                0, 4 * stride_words, 4);
  return GpuTimingModel(testing::test_device()).run(input_of(launch)).total_cycles.count();
}

TEST(MemoryTimingTest, ThreadgroupLoadBankConflicts) {
  constexpr std::int64_t kLatency = 10;
  // ready = issue + latency + (passes - 1).
  EXPECT_EQ(threadgroup_load_cycles(1), kLatency);        // 1 pass
  EXPECT_EQ(threadgroup_load_cycles(2), kLatency + 1);    // 2-way: lanes i and i+16 share a bank
  EXPECT_EQ(threadgroup_load_cycles(32), kLatency + 31);  // 32-way: every lane in bank 0
}

TEST(MemoryTimingTest, ThreadgroupMemoryPipeIsSharedByTheCore) {
  // Two simdgroups (schedulers 0 and 1) each issue a 32-way conflicting load at cycle 0.
  sim::LaunchTrace launch = launch_of(1, 64);
  add_memory_op(add_simdgroup(launch, 0, 0), OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId,
                0, 128, 4);
  add_memory_op(add_simdgroup(launch, 0, 1), OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId,
                0, 128, 4);
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // First: issue 0, pipe busy 32 cycles, ready 0 + 10 + 31 = 41. Second: issue 32, ready 73.
  EXPECT_EQ(r.total_cycles, Cycles(73));
  // Threadgroup-memory wait: first (41 - 1) + second (32 before issue + 40 after) = 112.
  EXPECT_EQ(r.breakdown[StallClass::kThreadgroupMemoryWait], 40 + 32 + 40);
  EXPECT_EQ(r.breakdown[StallClass::kIdle], 73 - 41);  // first finished, threadgroup not
  EXPECT_EQ(r.breakdown[StallClass::kTail], 2 * 73);   // core 1's two slots
  EXPECT_EQ(r.breakdown.total(), 2 * 2 * 73);
  // The pipe was busy 64 of 2 cores * 73 cycles.
  EXPECT_DOUBLE_EQ(r.utilization.threadgroup_memory, 64.0 / (2 * 73.0));
}

TEST(MemoryTimingTest, ThreadgroupMemoryPipeIsGrantedRoundRobin) {
  // Simdgroups on schedulers 0 and 1 each issue two independent 32-way loads (32 busy cycles
  // each). The pipe goes round robin among the schedulers that want it.
  sim::LaunchTrace launch = launch_of(1, 64);
  for (std::uint32_t s : {0u, 1u}) {
    sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, s);
    add_memory_op(sg, OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId, 0, 128, 4);
    add_memory_op(sg, OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId, 0, 128, 4);
  }
  testing::RecordingSink sink;
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch), &sink);
  // Cycle 0: both want the pipe, the turn starts at scheduler 0 -> sg0 load 1 (next turn: 1).
  // Cycle 32: sg0's second load and sg1's first want it; scheduler 1's turn -> sg1 (next: 2).
  // Cycle 64: both want it; from scheduler 2 the first wanting is 0 -> sg0 (next: 1).
  // Cycle 96: sg1's second load. Ready: sg0 64 + 10 + 31 = 105, sg1 96 + 41 = 137.
  // (Lowest scheduler first would give sg0 0 and 32, sg1 64 and 96: sg0 done at 73.)
  EXPECT_EQ(r.total_cycles, Cycles(137));
  EXPECT_EQ(r.breakdown[StallClass::kIdle], 137 - 105);  // sg0 finished, threadgroup not
  const std::vector<testing::StateInterval> sg1 = sink.states_of(0, 1);
  ASSERT_GE(sg1.size(), 2u);
  EXPECT_EQ(sg1[1], (testing::StateInterval{0, 1, StallClass::kIssuing, 32, 33}));
}

TEST(MemoryTimingTest, ThreadgroupMemoryGrantGoesBeforeTheIssuePolicy) {
  // Slots 0 and 4 share scheduler 0 (256 threads). Slot 0 (older): one FP16 FMA (latency 4);
  // slot 4: one conflict-free load (1 pass, latency 10). At cycle 0 the free pipe is granted to
  // scheduler 0, which then issues its threadgroup op before the older simdgroup's FMA:
  // load at 0 -> ready 10; FMA at 1 -> done 5. Total 10 (oldest first alone would give 11).
  sim::LaunchTrace launch = launch_of(1, 256);
  add_simdgroup(launch, 0, 0).ops = {testing::alu_op(AluKind::kFp16Fma, 1)};
  add_memory_op(add_simdgroup(launch, 0, 4), OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId,
                0, 4, 4);
  for (const IssuePolicy policy : {IssuePolicy::kOldestFirst, IssuePolicy::kGreedyThenOldest}) {
    const GpuTimingModel model(testing::test_device(), TimingOptions{.issue_policy = policy});
    EXPECT_EQ(model.run(input_of(launch)).total_cycles, Cycles(10));
  }
}

TEST(MemoryTimingTest, MatrixLoadFromThreadgroupMemoryUsesTheBanks) {
  // 8 rows of 16 bytes (8 halves), rows 16 bytes apart: 128 contiguous bytes, 1 pass.
  sim::LaunchTrace launch = launch_of(1, 32);
  sim::SimdgroupTrace& sg = add_simdgroup(launch, 0, 0);
  for (std::uint8_t row = 0; row < 8; ++row) {
    sg.accesses.push_back(sim::MemAccess{row * 16u, sim::kThreadgroupBufferId, 16, row});
  }
  sg.ops.push_back(sim::TraceOp{.op = OpClass::kMatrixLoad,
                                .kind = static_cast<std::uint8_t>(sim::Space::kThreadgroup),
                                .count = 8,
                                .mask = 0xFFFFFFFFu,
                                .dep = -1,
                                .first_access = 0});
  sg.ops.push_back(testing::simple_op(OpClass::kMatrixMultiply, 0));
  const TimingResult r = GpuTimingModel(testing::test_device()).run(input_of(launch));
  // Load ready at 10; multiply issues at 10, done 44.
  EXPECT_EQ(r.total_cycles, Cycles(44));
  EXPECT_EQ(r.breakdown[StallClass::kThreadgroupMemoryWait], 9);
  EXPECT_EQ(r.breakdown[StallClass::kMatrixBusy], 33);
}

}  // namespace
}  // namespace marlin::timing
