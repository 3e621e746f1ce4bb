// Next-step search and occupancy sweeps on the test devices (test_devices.h).
#include <gtest/gtest.h>

#include "model/analytic/occupancy.h"
#include "model/common/input_error.h"
#include "tests/analytic/test_devices.h"

namespace marlin::analytic {
namespace {

using testing::dynamic_occupancy;
using testing::static_occupancy;

const NextStep& step_of(const OccupancyResult& result, Resource resource) {
  for (const NextStep& step : result.next_steps) {
    if (step.resource == resource) return step;
  }
  ADD_FAILURE() << "no next step for " << resource_name(resource);
  return result.next_steps.front();
}

// Static, 128 threads, 20001 B (20016 allocated): 3 resident, memory binds. One more needs an
// allocation <= 65536 / 4 = 16384 B: reduce 20001 -> 16384 (3617 B). Registers were not given;
// fewer threads do not lift the memory limit.
TEST(NextStep, StaticThreadgroupMemory) {
  const OccupancyResult r = compute_occupancy({128, 20001, std::nullopt}, static_occupancy());
  ASSERT_EQ(r.next_steps.size(), 3u);
  const NextStep& mem = step_of(r, Resource::kThreadgroupMemory);
  EXPECT_TRUE(mem.reachable);
  EXPECT_EQ(mem.current, 20001);
  EXPECT_EQ(mem.new_value, 16384);
  EXPECT_EQ(mem.reduction, 20001 - 16384);
  EXPECT_EQ(mem.resident_threadgroups, 4);
  EXPECT_DOUBLE_EQ(mem.occupancy_percent, 16.0 / 96.0 * 100.0);
  const NextStep& regs = step_of(r, Resource::kRegisters);
  EXPECT_FALSE(regs.reachable);
  EXPECT_EQ(regs.note, "registers not given");
  EXPECT_FALSE(step_of(r, Resource::kThreads).reachable);
}

// Static, 256 threads, 64 registers: 1024 / 256 = 4 resident. Registers: 32 registers give
// 2048 threads per core -> 8 (reduction 32). Threads: 5 threadgroups need <= 1024 / 5 = 204.8
// thread slots -> 6 simdgroups = 192 threads (1024 / 192 = 5). No memory to reduce.
TEST(NextStep, StaticRegistersAndThreads) {
  const OccupancyResult r = compute_occupancy({256, 0, 64}, static_occupancy());
  ASSERT_EQ(r.resident_threadgroups, 4);
  const NextStep& regs = step_of(r, Resource::kRegisters);
  EXPECT_TRUE(regs.reachable);
  EXPECT_EQ(regs.current, 64);
  EXPECT_EQ(regs.new_value, 32);
  EXPECT_EQ(regs.reduction, 32);
  EXPECT_EQ(regs.resident_threadgroups, 8);
  // Threads: s simdgroups per threadgroup fit floor(1024 / (32 s)) times under the register
  // table, holding s * floor(32 / s) simdgroups: 32 at s = 8, 4, 2, 1 and 28 or 30 otherwise,
  // never more than the 32 held now.
  const NextStep& threads = step_of(r, Resource::kThreads);
  EXPECT_FALSE(threads.reachable);
  const NextStep& mem = step_of(r, Resource::kThreadgroupMemory);
  EXPECT_FALSE(mem.reachable);
  EXPECT_EQ(mem.note, "no threadgroup memory to reduce");
}

// The threadgroup cap binds: nothing reduced alone can add a threadgroup.
TEST(NextStep, UnreachableWhenTheCapBinds) {
  const OccupancyResult r = compute_occupancy({32, 1024, 16}, static_occupancy());
  ASSERT_EQ(r.resident_threadgroups, 32);
  for (const NextStep& step : r.next_steps) {
    EXPECT_FALSE(step.reachable) << resource_name(step.resource);
    EXPECT_EQ(step.note, "not reachable by this resource alone");
  }
}

// Dynamic, 128 threads, 4608 B, 32 assumed registers: 9 resident (footprint 20992).
// Ten need a footprint <= 196608 / 10 = 19660.8 B:
//   memory: <= 19660.8 - 16384 = 3276.8 -> 3264 (51 granules of 64): 19648 B, 10 resident.
//   registers: 512 * r + 4608 <= 19660.8 -> r <= 29.4 -> 29: 19456 B, 10 resident.
//   threads: fewer simdgroups per threadgroup must hold more than 9 * 4 = 36 simdgroups:
//     3 SG: 196608 / (4608 + 12288) = 11 TG = 33 SG; 2 SG: 15 TG = 30 SG; 1 SG: 22 SG. None.
TEST(NextStep, DynamicCachingAllThreeResources) {
  const OccupancyResult r = compute_occupancy({128, 4608, std::nullopt}, dynamic_occupancy());
  ASSERT_EQ(r.resident_threadgroups, 9);
  const NextStep& mem = step_of(r, Resource::kThreadgroupMemory);
  EXPECT_TRUE(mem.reachable);
  EXPECT_EQ(mem.new_value, 3264);
  EXPECT_EQ(mem.reduction, 4608 - 3264);
  EXPECT_EQ(mem.resident_threadgroups, 10);
  const NextStep& regs = step_of(r, Resource::kRegisters);
  EXPECT_TRUE(regs.reachable);
  EXPECT_EQ(regs.current, 32);
  EXPECT_EQ(regs.new_value, 29);
  EXPECT_EQ(regs.reduction, 3);
  EXPECT_EQ(regs.resident_threadgroups, 10);
  EXPECT_NE(regs.note.find("assumed 32"), std::string::npos);
  const NextStep& threads = step_of(r, Resource::kThreads);
  EXPECT_FALSE(threads.reachable);
}

// Reference: the largest value below `current` where the plain rule gives more threadgroups,
// computed independently for the static device's memory limit (floor(65536 / round16(v))).
TEST(NextStep, StaticMemoryMatchesAPlainReferenceOverManyValues) {
  const OccupancyDeviceSpec device = static_occupancy();
  for (std::int64_t bytes = 3000; bytes <= 32768; bytes += 997) {
    auto resident = [](std::int64_t v) {
      const std::int64_t alloc = (v + 15) / 16 * 16;
      return std::min<std::int64_t>(alloc == 0 ? 32 : 65536 / alloc, 24);  // 24: 128 threads
    };
    std::int64_t expected = -1;
    for (std::int64_t v = bytes - 1; v >= 0; --v) {
      if (resident(v) > resident(bytes)) {
        expected = v;
        break;
      }
    }
    const OccupancyResult r = compute_occupancy({128, bytes, std::nullopt}, device);
    const NextStep& mem = step_of(r, Resource::kThreadgroupMemory);
    ASSERT_EQ(mem.reachable, expected >= 0) << bytes;
    if (mem.reachable) {
      EXPECT_EQ(mem.new_value, expected) << bytes;
    }
  }
}

TEST(Sweep, ThreadsOnTheStaticDevice) {
  const auto points = sweep_threads({0, 0, std::nullopt}, static_occupancy());
  ASSERT_EQ(points.size(), 1024u / 32u);
  EXPECT_EQ(points.front().x, 32);
  EXPECT_EQ(points.front().resident_threadgroups, 32);  // cap
  EXPECT_EQ(points[3].x, 128);
  EXPECT_EQ(points[3].resident_threadgroups, 3072 / 128);
  EXPECT_EQ(points.back().x, 1024);
  EXPECT_EQ(points.back().resident_threadgroups, 3);
  EXPECT_EQ(points.back().resident_simdgroups, 96);
  EXPECT_DOUBLE_EQ(points.back().occupancy_percent, 100.0);
}

// At 128 registers the table allows 512 threads: points above 512 are refused.
TEST(Sweep, ThreadsAboveTheRegisterTableAreRefused) {
  const auto points = sweep_threads({0, 0, 128}, static_occupancy());
  EXPECT_FALSE(points[15].refused);  // 512 threads
  EXPECT_EQ(points[15].x, 512);
  EXPECT_EQ(points[15].resident_threadgroups, 1);
  EXPECT_TRUE(points[16].refused);  // 544 threads
}

TEST(Sweep, ThreadgroupMemory) {
  const auto points = sweep_threadgroup_memory({128, 0, std::nullopt}, static_occupancy(), 1024);
  ASSERT_EQ(points.size(), 33u);                   // 0, 1024, ..., 32768
  EXPECT_EQ(points[0].resident_threadgroups, 24);  // threads bind
  EXPECT_EQ(points[4].x, 4096);
  EXPECT_EQ(points[4].resident_threadgroups, 65536 / 4096);
  EXPECT_EQ(points.back().x, 32768);
  EXPECT_EQ(points.back().resident_threadgroups, 2);
  EXPECT_EQ(points.back().binding, std::vector<LimitKind>{LimitKind::kThreadgroupMemory});
}

TEST(Sweep, ThreadgroupMemoryEndsAtTheLimit) {
  const auto points = sweep_threadgroup_memory({128, 0, std::nullopt}, static_occupancy(), 5000);
  ASSERT_EQ(points.size(), 8u);  // 0, 5000, ..., 30000, then 32768
  EXPECT_EQ(points[6].x, 30000);
  EXPECT_EQ(points.back().x, 32768);
  EXPECT_THROW(sweep_threadgroup_memory({128, 0, std::nullopt}, static_occupancy(), 0), InputError);
}

// 128 threads: 1 register -> 3072 threads per core (cap) -> 24; 64 -> 1024 / 128 = 8;
// 128 -> 512 / 128 = 4.
TEST(Sweep, Registers) {
  const auto points = sweep_registers({128, 0, std::nullopt}, static_occupancy());
  ASSERT_EQ(points.size(), 128u);
  EXPECT_EQ(points[0].x, 1);
  EXPECT_EQ(points[0].resident_threadgroups, 24);
  EXPECT_EQ(points[63].x, 64);
  EXPECT_EQ(points[63].resident_threadgroups, 8);
  EXPECT_EQ(points[127].resident_threadgroups, 4);
  EXPECT_EQ(points[127].binding, std::vector<LimitKind>{LimitKind::kRegisters});
}

}  // namespace
}  // namespace marlin::analytic
