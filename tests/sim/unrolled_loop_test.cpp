// Loops marked `#pragma clang loop unroll(full)` or `#pragma unroll`: the kernel
// test_unrolled_loops_6 (tests/sim/kernels/unrolled_loops.metal) against a count written out
// by hand.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

constexpr std::uint32_t kThreads = 32;
constexpr std::uint32_t kRuntimeTrips = 3;  // in[0]

// Per thread, one loop at a time (N = 6, n = 3):
//   unrolled, 4 copies of x += i * 3u            int add 4 (i * 3u is a constant)
//   unrolled, i = 0, 2, 4: x ^= i                int logic 3
//   unrolled, constexpr bound 2: x += 7u         int add 2
//   runtime bound: i < n, ++i, x += i            compare-select 4, int add 3 + 3
//   body assigns i: i = 0, 1 -> 2, 3, then 4 ends it:
//     i < 4 at i = 0, 1, 3, 4; i == 1u at 0, 1, 3  compare-select 4 + 3
//     x += 1u, ++i three times                    int add 3 + 3
//   not marked, 2 trips: i < 2 thrice, ++i, +=    compare-select 3, int add 2 + 2
//   partial unroll, the same                      compare-select 3, int add 2 + 2
std::array<std::uint64_t, kAluKindCount> expected_per_thread() {
  std::array<std::uint64_t, kAluKindCount> e{};
  e[static_cast<std::size_t>(AluKind::kIntAdd)] = 4 + 2 + 6 + 6 + 4 + 4;
  e[static_cast<std::size_t>(AluKind::kIntLogic)] = 3;
  e[static_cast<std::size_t>(AluKind::kCompareSelect)] = 4 + 7 + 3 + 3;
  return e;
}

std::uint32_t expected_value(std::uint32_t gid) {
  std::uint32_t x = gid;
  for (std::uint32_t i = 0; i < 4; ++i) x += i * 3u;
  for (std::uint32_t i = 0; i < 6; i += 2) x ^= i;
  for (std::uint32_t i = 0; i < kRuntimeTrips; ++i) x += i;
  return x + 14u + 3u + 10u + 10u;
}

TEST(UnrolledLoopTest, IndexOfAConstantTripLoopIsNotCounted) {
  std::vector<std::uint32_t> in = {kRuntimeTrips};
  std::vector<std::uint32_t> out(kThreads, 0);
  LaunchSpec s = spec("test_unrolled_loops_6", {1, 1, 1}, {kThreads, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  s.options.trace = true;
  const LaunchResult result = launch(s);
  ASSERT_TRUE(result.ok());
  for (std::uint32_t t = 0; t < kThreads; ++t) EXPECT_EQ(out[t], expected_value(t)) << t;

  const auto per_thread = expected_per_thread();
  for (std::size_t k = 0; k < kAluKindCount; ++k) {
    EXPECT_EQ(result.stats.alu_lane_ops[k], per_thread[k] * kThreads)
        << alu_kind_name(static_cast<AluKind>(k));
  }
  ASSERT_EQ(result.trace.simdgroups.size(), 1u);
  std::array<std::uint64_t, kAluKindCount> instructions{};
  for (const TraceOp& op : result.trace.simdgroups[0].ops) {
    if (op.op == OpClass::kAlu) instructions[op.kind] += op.count;
  }
  for (std::size_t k = 0; k < kAluKindCount; ++k) {
    EXPECT_EQ(instructions[k], per_thread[k]) << alu_kind_name(static_cast<AluKind>(k));
  }
}

}  // namespace
}  // namespace marlin::sim
