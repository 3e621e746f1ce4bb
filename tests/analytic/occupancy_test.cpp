// Occupancy rules on the test devices (test_devices.h): each limit binding alone, ties,
// refusals, rounding of threads and threadgroup memory, static and dynamic-caching rules.
#include "model/analytic/occupancy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/analytic/test_devices.h"

namespace marlin::analytic {
namespace {

using testing::dynamic_occupancy;
using testing::static_occupancy;
using Binding = std::vector<LimitKind>;

const OccupancyLimit& limit_of(const OccupancyResult& result, LimitKind kind) {
  const auto it = std::find_if(result.limits.begin(), result.limits.end(),
                               [kind](const OccupancyLimit& l) { return l.kind == kind; });
  EXPECT_NE(it, result.limits.end());
  return *it;
}

OccupancyQuery query(int threads, std::int64_t bytes, std::optional<int> regs = std::nullopt) {
  return OccupancyQuery{threads, bytes, regs};
}

TEST(Occupancy, LimitsComeInEnumOrder) {
  const OccupancyResult r = evaluate_occupancy(query(128, 0), static_occupancy());
  ASSERT_EQ(r.limits.size(), 6u);
  EXPECT_EQ(r.limits[0].kind, LimitKind::kThreads);
  EXPECT_EQ(r.limits[1].kind, LimitKind::kSimdgroups);
  EXPECT_EQ(r.limits[2].kind, LimitKind::kThreadgroupMemory);
  EXPECT_EQ(r.limits[3].kind, LimitKind::kRegisters);
  EXPECT_EQ(r.limits[4].kind, LimitKind::kOnchipPool);
  EXPECT_EQ(r.limits[5].kind, LimitKind::kThreadgroups);
  EXPECT_EQ(limit_name(LimitKind::kOnchipPool), "onchip_pool");
}

// 1024 threads = 32 simdgroups: 3072 / 1024 = 3 and 96 / 32 = 3 tie.
TEST(Occupancy, ThreadsAndSimdgroupsTieOnAConsistentDevice) {
  const OccupancyResult r = evaluate_occupancy(query(1024, 0), static_occupancy());
  ASSERT_FALSE(r.refused);
  EXPECT_EQ(r.resident_threadgroups, 3);
  EXPECT_EQ(r.resident_simdgroups, 96);
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 100.0);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kThreads, LimitKind::kSimdgroups}));
  const OccupancyLimit& threads = limit_of(r, LimitKind::kThreads);
  EXPECT_EQ(threads.per_threadgroup, 1024);
  EXPECT_EQ(threads.per_core, 3072);
  EXPECT_EQ(threads.unit, "threads");
}

// With 128 simdgroup slots, 3072 / 1024 = 3 threads-limited against 128 / 32 = 4.
TEST(Occupancy, ThreadsBindAlone) {
  OccupancyDeviceSpec device = static_occupancy();
  device.limits.max_simdgroups_per_core = 128;
  const OccupancyResult r = evaluate_occupancy(query(1024, 0), device);
  EXPECT_EQ(r.resident_threadgroups, 3);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kThreads}));
  EXPECT_EQ(limit_of(r, LimitKind::kSimdgroups).resident_threadgroups, 4);
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 96.0 / 128.0 * 100.0);
}

// With 64 simdgroup slots, 64 / 32 = 2 against 3072 / 1024 = 3.
TEST(Occupancy, SimdgroupsBindAlone) {
  OccupancyDeviceSpec device = static_occupancy();
  device.limits.max_simdgroups_per_core = 64;
  const OccupancyResult r = evaluate_occupancy(query(1024, 0), device);
  EXPECT_EQ(r.resident_threadgroups, 2);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kSimdgroups}));
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 100.0);
}

// 20001 B rounds up to 20016 (16 B alignment); 65536 / 20016 = 3.27 -> 3 against 24 threads.
TEST(Occupancy, ThreadgroupMemoryBindsAloneWithAlignment) {
  const OccupancyResult r = evaluate_occupancy(query(128, 20001), static_occupancy());
  EXPECT_EQ(r.allocated_threadgroup_memory_bytes, 20016);
  EXPECT_EQ(r.resident_threadgroups, 3);
  EXPECT_EQ(r.resident_simdgroups, 12);
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 12.0 / 96.0 * 100.0);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kThreadgroupMemory}));
  const OccupancyLimit& mem = limit_of(r, LimitKind::kThreadgroupMemory);
  EXPECT_TRUE(mem.applies);
  EXPECT_EQ(mem.per_threadgroup, 20016);
  EXPECT_EQ(mem.per_core, 65536);
  EXPECT_EQ(limit_of(r, LimitKind::kThreads).resident_threadgroups, 3072 / 128);
}

TEST(Occupancy, NoThreadgroupMemoryMeansNoMemoryLimit) {
  const OccupancyResult r = evaluate_occupancy(query(128, 0), static_occupancy());
  EXPECT_FALSE(limit_of(r, LimitKind::kThreadgroupMemory).applies);
  EXPECT_FALSE(limit_of(r, LimitKind::kRegisters).applies);
  EXPECT_FALSE(limit_of(r, LimitKind::kRegisters).note.empty());
  EXPECT_FALSE(limit_of(r, LimitKind::kOnchipPool).applies);
  EXPECT_EQ(r.resident_threadgroups, 24);
  EXPECT_FALSE(r.registers_used.has_value());
}

// 64 registers -> 1024 threads per core; 256-thread threadgroups: 1024 / 256 = 4 against 12.
TEST(Occupancy, RegistersBindAloneOnTheStaticRule) {
  const OccupancyResult r = evaluate_occupancy(query(256, 0, 64), static_occupancy());
  EXPECT_EQ(r.resident_threadgroups, 4);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kRegisters}));
  const OccupancyLimit& regs = limit_of(r, LimitKind::kRegisters);
  EXPECT_EQ(regs.per_core, 1024);
  EXPECT_EQ(regs.per_threadgroup, 256);
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 32.0 / 96.0 * 100.0);
}

// 32-thread threadgroups: 96 by threads and simdgroups, 32 by the threadgroup cap.
TEST(Occupancy, ThreadgroupCapBindsAlone) {
  const OccupancyResult r = evaluate_occupancy(query(32, 0), static_occupancy());
  EXPECT_EQ(r.resident_threadgroups, 32);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kThreadgroups}));
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 32.0 / 96.0 * 100.0);
}

// 16384 B: 65536 / 16384 = 4; 64 registers: 1024 / 256 = 4.
TEST(Occupancy, ThreadgroupMemoryAndRegistersTie) {
  const OccupancyResult r = evaluate_occupancy(query(256, 16384, 64), static_occupancy());
  EXPECT_EQ(r.resident_threadgroups, 4);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kThreadgroupMemory, LimitKind::kRegisters}));
}

// 48 threads occupy 2 simdgroups = 64 thread slots: 3072 / 64 = 48, 96 / 2 = 48; with a
// 64-threadgroup cap the thread slots bind at 48, not at 3072 / 48 = 64.
TEST(Occupancy, NonMultipleOfSimdWidthRoundsToWholeSimdgroups) {
  OccupancyDeviceSpec device = static_occupancy();
  device.limits.max_threadgroups_per_core = 64;
  const OccupancyResult r = evaluate_occupancy(query(48, 0), device);
  EXPECT_EQ(r.simdgroups_per_threadgroup, 2);
  EXPECT_EQ(r.allocated_threads_per_threadgroup, 64);
  EXPECT_EQ(r.resident_threadgroups, 48);
  EXPECT_EQ(r.resident_simdgroups, 96);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kThreads, LimitKind::kSimdgroups}));
}

// 100 threads = 4 simdgroups; 64 registers: 1024 / 128 = 8 threadgroups.
TEST(Occupancy, RegisterLimitCountsWholeSimdgroups) {
  const OccupancyResult r = evaluate_occupancy(query(100, 0, 64), static_occupancy());
  EXPECT_EQ(r.allocated_threads_per_threadgroup, 128);
  EXPECT_EQ(r.resident_threadgroups, 8);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kRegisters}));
}

TEST(RegisterTable, RowsAndBelowTheFirstRow) {
  const OccupancyDeviceSpec device = static_occupancy();
  // 16 registers: 262144 / (16 * 4 * 32) = 128 simdgroups = 4096 threads, capped at 3072.
  EXPECT_EQ(register_table_threads_per_core(device, 16), 3072);
  // 24 registers: 262144 / (24 * 4 * 32) = 85.3 -> 85 simdgroups = 2720 threads.
  EXPECT_EQ(register_table_threads_per_core(device, 24), 85 * 32);
  EXPECT_EQ(register_table_threads_per_core(device, 32), 2048);
  EXPECT_EQ(register_table_threads_per_core(device, 33), 1024);
  EXPECT_EQ(register_table_threads_per_core(device, 64), 1024);
  EXPECT_EQ(register_table_threads_per_core(device, 65), 512);
  EXPECT_EQ(register_table_threads_per_core(device, 128), 512);
  EXPECT_FALSE(register_table_threads_per_core(device, 129).has_value());
}

// With half the register file, 24 registers give 131072 / 3072 = 42 simdgroups = 1344 threads,
// below the first row's 2048: the first row wins.
TEST(RegisterTable, NeverBelowTheFirstRow) {
  OccupancyDeviceSpec device = static_occupancy();
  device.occupancy.register_file_per_core_bytes = 131072;
  EXPECT_EQ(register_table_threads_per_core(device, 24), 2048);
}

// 24 registers -> 2720 threads per core; 256-thread threadgroups: 2720 / 256 = 10 (< 12).
TEST(Occupancy, RegistersBelowTheTableBind) {
  const OccupancyResult r = evaluate_occupancy(query(256, 0, 24), static_occupancy());
  EXPECT_EQ(r.resident_threadgroups, 10);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kRegisters}));
}

struct RefusalCase {
  OccupancyQuery query;
  const char* reason_contains;
};

TEST(Occupancy, RefusalsOnTheStaticRule) {
  const RefusalCase cases[] = {
      {query(1025, 0), "exceed the device limit of 1024"},
      {query(0, 0), "at least 1"},
      {query(-5, 0), "at least 1"},
      {query(128, 32769), "per-threadgroup limit of 32768"},
      {query(128, -1), "must not be negative"},
      {query(128, 0, 129), "registers per thread exceed"},
      {query(128, 0, 0), "registers per thread must be at least 1"},
      // 128 registers allow 512 threads per core, so a 1024-thread threadgroup is refused.
      {query(1024, 0, 128), "register table allows"},
      {query(513, 0, 128), "register table allows"},
  };
  for (const RefusalCase& c : cases) {
    const OccupancyResult r = compute_occupancy(c.query, static_occupancy());
    EXPECT_TRUE(r.refused) << c.reason_contains;
    EXPECT_NE(r.refusal_reason.find(c.reason_contains), std::string::npos) << r.refusal_reason;
    EXPECT_EQ(r.resident_threadgroups, 0);
    EXPECT_TRUE(r.limits.empty());
    EXPECT_TRUE(r.next_steps.empty());
  }
}

TEST(Occupancy, LimitsExactlyReachedAreAccepted) {
  // 512 threads at 128 registers: 512 / 512 = 1 threadgroup.
  const OccupancyResult at_table = evaluate_occupancy(query(512, 0, 128), static_occupancy());
  EXPECT_FALSE(at_table.refused);
  EXPECT_EQ(at_table.resident_threadgroups, 1);
  // 32768 B: 65536 / 32768 = 2.
  const OccupancyResult at_memory = evaluate_occupancy(query(1024, 32768), static_occupancy());
  EXPECT_FALSE(at_memory.refused);
  EXPECT_EQ(at_memory.resident_threadgroups, 2);
}

TEST(Occupancy, RegistersBeyondTheTableAreRefused) {
  OccupancyDeviceSpec device = static_occupancy();
  device.occupancy.register_table = {{32, 2048}, {64, 1024}};
  const OccupancyResult r = evaluate_occupancy(query(128, 0, 100), device);
  EXPECT_TRUE(r.refused);
  EXPECT_NE(r.refusal_reason.find("no row for 100"), std::string::npos);
}

// Dynamic caching, 128 threads, 4608 B, 32 assumed registers:
// registers 128 * 32 * 4 = 16384 B, memory 4608 B (72 granules), footprint 20992 B;
// 196608 / 20992 = 9.37 -> 9 threadgroups = 36 simdgroups = 37.5 %.
TEST(DynamicCaching, PoolBindsWithAssumedRegisters) {
  const OccupancyResult r = evaluate_occupancy(query(128, 4608), dynamic_occupancy());
  ASSERT_FALSE(r.refused);
  EXPECT_EQ(r.rule, model::OccupancyRule::kDynamicCaching);
  EXPECT_TRUE(r.registers_assumed);
  EXPECT_EQ(r.registers_used, 32);
  ASSERT_TRUE(r.pool.has_value());
  EXPECT_EQ(r.pool->available_bytes, 262144 - 65536);
  EXPECT_EQ(r.pool->register_bytes, 16384);
  EXPECT_EQ(r.pool->threadgroup_memory_bytes, 4608);
  EXPECT_EQ(r.pool->footprint_bytes, 20992);
  EXPECT_FALSE(r.pool->oversubscribed);
  EXPECT_EQ(r.resident_threadgroups, 9);
  EXPECT_EQ(r.resident_simdgroups, 36);
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 37.5);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kOnchipPool}));
  EXPECT_FALSE(limit_of(r, LimitKind::kThreadgroupMemory).applies);
  EXPECT_FALSE(limit_of(r, LimitKind::kRegisters).applies);
  const OccupancyLimit& pool = limit_of(r, LimitKind::kOnchipPool);
  EXPECT_EQ(pool.per_threadgroup, 20992);
  EXPECT_EQ(pool.per_core, 196608);
  EXPECT_NE(pool.note.find("assumed"), std::string::npos);
}

// 4610 B rounds to 4672 (73 granules of 64); footprint 21056; 196608 / 21056 = 9.34 -> 9.
TEST(DynamicCaching, ThreadgroupMemoryRoundsToTheGranule) {
  const OccupancyResult r = evaluate_occupancy(query(128, 4610), dynamic_occupancy());
  EXPECT_EQ(r.allocated_threadgroup_memory_bytes, 4672);
  EXPECT_EQ(r.pool->footprint_bytes, 4672 + 16384);
  EXPECT_EQ(r.resident_threadgroups, 9);
}

// Residency 0.5: registers 8192 B + 4608 B = 12800; 196608 / 12800 = 15.36 -> 15.
TEST(DynamicCaching, RegisterResidencyScalesRegisterBytes) {
  OccupancyDeviceSpec device = dynamic_occupancy();
  device.occupancy.register_residency = 0.5;
  const OccupancyResult r = evaluate_occupancy(query(128, 4608), device);
  EXPECT_EQ(r.pool->register_bytes, 8192);
  EXPECT_EQ(r.resident_threadgroups, 15);
}

// Given 64 registers: 128 * 64 * 4 = 32768 + 4608 = 37376; 196608 / 37376 = 5.26 -> 5.
TEST(DynamicCaching, GivenRegistersReplaceTheAssumedCount) {
  const OccupancyResult r = evaluate_occupancy(query(128, 4608, 64), dynamic_occupancy());
  EXPECT_FALSE(r.registers_assumed);
  EXPECT_EQ(r.registers_used, 64);
  EXPECT_EQ(r.resident_threadgroups, 5);
}

// 1024 threads with 128 registers: the static table would refuse it; dynamic caching does not.
// Footprint 1024 * 128 * 4 + 32768 = 557056 > 196608: counted as one threadgroup.
TEST(DynamicCaching, OversubscribedPoolStillRunsOneThreadgroup) {
  const OccupancyResult r = evaluate_occupancy(query(1024, 32768, 128), dynamic_occupancy());
  ASSERT_FALSE(r.refused);
  EXPECT_TRUE(r.pool->oversubscribed);
  EXPECT_EQ(r.pool->footprint_bytes, 557056);
  EXPECT_EQ(r.resident_threadgroups, 1);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kOnchipPool}));
}

// Small footprint: 32 threads, no memory, 32 registers = 4096 B; 196608 / 4096 = 48 > 32.
TEST(DynamicCaching, ThreadgroupCapStillApplies) {
  const OccupancyResult r = evaluate_occupancy(query(32, 0), dynamic_occupancy());
  EXPECT_EQ(limit_of(r, LimitKind::kOnchipPool).resident_threadgroups, 48);
  EXPECT_EQ(r.resident_threadgroups, 32);
  EXPECT_EQ(r.binding, (Binding{LimitKind::kThreadgroups}));
}

// 1024 threads, 16 registers, no memory: pool 65536 B per threadgroup -> 196608 / 65536 = 3,
// threads 3, simdgroups 3: a three-way tie.
TEST(DynamicCaching, PoolTiesWithThreads) {
  const OccupancyResult r = evaluate_occupancy(query(1024, 0, 16), dynamic_occupancy());
  EXPECT_EQ(r.resident_threadgroups, 3);
  EXPECT_EQ(r.binding,
            (Binding{LimitKind::kThreads, LimitKind::kSimdgroups, LimitKind::kOnchipPool}));
}

TEST(DynamicCaching, ApiRefusalsStillApply) {
  EXPECT_TRUE(evaluate_occupancy(query(2048, 0), dynamic_occupancy()).refused);
  EXPECT_TRUE(evaluate_occupancy(query(128, 40000), dynamic_occupancy()).refused);
  EXPECT_TRUE(evaluate_occupancy(query(128, 0, 200), dynamic_occupancy()).refused);
}

// Why `device` refuses a threadgroup of 128 threads (4 simdgroups); a refusal leaves no
// limits, binding or resident threadgroups.
std::string refusal_of_128_threads(const OccupancyDeviceSpec& device) {
  const OccupancyResult r = evaluate_occupancy(query(128, 0), device);
  EXPECT_TRUE(r.refused);
  EXPECT_EQ(r.resident_threadgroups, 0);
  EXPECT_TRUE(r.limits.empty());
  EXPECT_TRUE(r.binding.empty());
  return r.refusal_reason;
}

// A core smaller than one threadgroup (only a spec built in code; profile checks keep the
// per-threadgroup limits within the per-core ones): 128 threads against 64 thread slots, or 4
// simdgroups against 3 slots, leave no threadgroup resident, so the launch is refused.
TEST(Occupancy, ACoreSmallerThanOneThreadgroupRefuses) {
  OccupancyDeviceSpec few_threads = dynamic_occupancy();
  few_threads.limits.max_threads_per_core = 64;
  EXPECT_EQ(refusal_of_128_threads(few_threads),
            "one threadgroup needs 128 threads, more than the 64 a core holds (threads limit)");
  OccupancyDeviceSpec few_simdgroups = static_occupancy();
  few_simdgroups.limits.max_simdgroups_per_core = 3;
  EXPECT_EQ(refusal_of_128_threads(few_simdgroups),
            "one threadgroup needs 4 simdgroups, more than the 3 a core holds (simdgroups limit)");
  // One slot more fits exactly one threadgroup.
  few_simdgroups.limits.max_simdgroups_per_core = 4;
  EXPECT_EQ(evaluate_occupancy(query(128, 0), few_simdgroups).resident_threadgroups, 1);
}

}  // namespace
}  // namespace marlin::analytic
