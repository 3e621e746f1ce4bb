// Simdgroup barriers: memory accesses after a barrier see every lane's accesses before it,
// the trace records each barrier with the lanes that crossed it, and divergent lanes at
// different barriers are served in program order. Expected values from plain C++ loops.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::non_alu;
using testing::spec;

// The lane masks of a trace's simdgroup barriers, in order.
std::vector<std::uint32_t> barrier_masks(const SimdgroupTrace& t) {
  std::vector<std::uint32_t> masks;
  for (const TraceOp& op : non_alu(t)) {
    if (op.op == OpClass::kSimdBarrier) masks.push_back(op.mask);
  }
  return masks;
}

// One simdgroup of `kernel` writing its lanes' results to `out` (32 ints).
LaunchResult run_one_simdgroup(const std::string& kernel, std::vector<int>& out) {
  LaunchSpec s = spec(kernel, {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(out);
  return launch(s);
}

TEST(SimdBarrierTest, ExchangesThroughThreadgroupMemorySeeEveryLanesWrite) {
  const std::uint32_t rounds = 5;
  std::vector<int> in(64), out(64, -1);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 7 % 23) - 4;
  std::uint32_t r_count = rounds;
  LaunchSpec s = spec("test_barrier_rounds", {1, 1, 1}, {64, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  s.buffers[2] = buffer(r_count);
  const LaunchResult r = launch(s);
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].message;  // the sanitizer finds no race
  for (std::uint32_t sg = 0; sg < 2; ++sg) {
    for (std::uint32_t l = 0; l < 32; ++l) {
      int expected = 0;
      for (std::uint32_t k = 0; k < rounds; ++k) {
        expected += in[sg * 32 + (l + k + 1) % 32] * static_cast<int>(k + 1);
      }
      EXPECT_EQ(out[sg * 32 + l], expected) << "simdgroup " << sg << " lane " << l;
    }
  }
  // Per round: the device load, the store, a barrier of all lanes, the load, a barrier; then
  // the device store.
  for (const SimdgroupTrace& t : r.trace.simdgroups) {
    const std::vector<TraceOp> ops = non_alu(t);
    ASSERT_EQ(ops.size(), rounds * 5 + 1);
    for (std::uint32_t k = 0; k < rounds; ++k) {
      const OpClass expected[] = {OpClass::kDeviceLoad, OpClass::kThreadgroupStore,
                                  OpClass::kSimdBarrier, OpClass::kThreadgroupLoad,
                                  OpClass::kSimdBarrier};
      for (std::uint32_t i = 0; i < 5; ++i) {
        EXPECT_EQ(ops[k * 5 + i].op, expected[i]) << "round " << k << " op " << i;
        EXPECT_EQ(ops[k * 5 + i].mask, 0xFFFFFFFFu) << "round " << k << " op " << i;
      }
    }
    EXPECT_EQ(ops.back().op, OpClass::kDeviceStore);
  }
}

TEST(SimdBarrierTest, DivergentBranchesCrossTheirOwnBarriers) {
  std::vector<int> out(32, -1);
  const LaunchResult r = run_one_simdgroup("test_barrier_divergent_branches", out);
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].message;
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(out[static_cast<std::size_t>(l)], (l < 16 ? 15 - l : 47 - l) * 5) << l;
  }
  // The branch first in the source is served first, each barrier with its half's mask.
  EXPECT_EQ(barrier_masks(r.trace.simdgroups[0]),
            (std::vector<std::uint32_t>{0x0000FFFFu, 0xFFFF0000u}));
}

TEST(SimdBarrierTest, BarrierInALoopOfLaneDependentTripCount) {
  std::vector<int> out(32, -1);
  const LaunchResult r = run_one_simdgroup("test_barrier_divergent_loop", out);
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].message;
  for (int l = 0; l < 32; ++l) {
    const int trips = (31 - l) % 4 + 1;
    EXPECT_EQ(out[static_cast<std::size_t>(l)], trips * (trips + 1) / 2) << l;
  }
  // Iteration i's barrier holds the lanes with more than i trips; then the one of all lanes.
  std::vector<std::uint32_t> expected;
  for (std::uint32_t i = 0; i < 4; ++i) {
    std::uint32_t mask = 0;
    for (std::uint32_t l = 0; l < 32; ++l) {
      if (l % 4 >= i) mask |= 1u << l;
    }
    expected.push_back(mask);
  }
  expected.push_back(0xFFFFFFFFu);
  EXPECT_EQ(barrier_masks(r.trace.simdgroups[0]), expected);
}

}  // namespace
}  // namespace marlin::sim
