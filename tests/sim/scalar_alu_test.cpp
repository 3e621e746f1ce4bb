// ALU work on plain scalars (int, uint, float) is counted from what executes: the kernel
// test_scalar_alu (tests/sim/kernels/scalar_alu.metal) against a count written out by hand.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

constexpr std::uint32_t kThreads = 64;

// Per thread, one line of the kernel at a time:
//   constexpr uint kShift = uint(1) + 2u;     constant-evaluated, nothing
//   int(a) - 3                                int add 1 (uint -> int is no conversion op)
//   (a << kShift) ^ (a >> 1)                  shift 2, logic 1
//   x * 7u + (a % 5u)                         int mul 2 (mul, mod), int add 1
//   x |= ~a & 0xFFu                           logic 3
//   float(x)                                  convert 1
//   f * 0.5f + float(b)                       fp32 mul 1, convert 1, fp32 add 1
//   g / 4.0f - f                              reciprocal 1 (divide), fp32 add 1
//   g > 10.0f                                 compare-select 1
//   select(x + 1u, x, big)                    int add 1, compare-select 1
//   for (int i = 0; i < 4; ++i) acc += float(i)
//                                             compare-select 5, int add 4, convert 4, fp32 add 4
//   fma(g, 2.0f, acc)                         fp32 fma 1
std::array<std::uint64_t, kAluKindCount> expected_per_thread() {
  std::array<std::uint64_t, kAluKindCount> e{};
  const auto set = [&](AluKind k, std::uint64_t n) { e[static_cast<std::size_t>(k)] = n; };
  set(AluKind::kIntAdd, 1 + 1 + 1 + 4);
  set(AluKind::kIntShift, 2);
  set(AluKind::kIntLogic, 1 + 3);
  set(AluKind::kIntMul, 2);
  set(AluKind::kConvert, 1 + 1 + 4);
  set(AluKind::kFp32Mul, 1);
  set(AluKind::kFp32Add, 1 + 1 + 4);
  set(AluKind::kReciprocal, 1);
  set(AluKind::kCompareSelect, 1 + 1 + 5);
  set(AluKind::kFp32Fma, 1);
  return e;
}

struct ScalarRun {
  LaunchResult result;
  std::vector<std::uint32_t> in;
  std::vector<std::uint32_t> out_u;
  std::vector<float> out_f;
};

ScalarRun run_scalar_alu(bool trace) {
  ScalarRun run;
  run.in.resize(kThreads);
  for (std::uint32_t i = 0; i < kThreads; ++i) run.in[i] = 37u * i + 5u;
  run.out_u.assign(kThreads, 0);
  run.out_f.assign(kThreads, 0.0f);
  LaunchSpec s = spec("test_scalar_alu", {1, 1, 1}, {kThreads, 1, 1});
  s.buffers[0] = buffer(run.in);
  s.buffers[1] = buffer(run.out_u);
  s.buffers[2] = buffer(run.out_f);
  s.options.trace = trace;
  run.result = launch(s);
  return run;
}

TEST(ScalarAluTest, ResultsMatchPlainCpp) {
  const ScalarRun run = run_scalar_alu(false);
  ASSERT_TRUE(run.result.ok());
  for (std::uint32_t t = 0; t < kThreads; ++t) {
    const std::uint32_t a = run.in[t];
    const int b = static_cast<int>(a) - 3;
    std::uint32_t x = (a << 3) ^ (a >> 1);
    x = x * 7u + (a % 5u);
    x |= ~a & 0xFFu;
    const float f = static_cast<float>(x);
    float g = f * 0.5f + static_cast<float>(b);
    g = g / 4.0f - f;
    EXPECT_EQ(run.out_u[t], g > 10.0f ? x : x + 1u) << t;
    EXPECT_EQ(run.out_f[t], std::fma(g, 2.0f, 0.0f + 1.0f + 2.0f + 3.0f)) << t;
  }
}

TEST(ScalarAluTest, LaunchStatsCountEveryExecutedOperator) {
  const ScalarRun run = run_scalar_alu(false);
  const auto per_thread = expected_per_thread();
  for (std::size_t k = 0; k < kAluKindCount; ++k) {
    EXPECT_EQ(run.result.stats.alu_lane_ops[k], per_thread[k] * kThreads)
        << alu_kind_name(static_cast<AluKind>(k));
  }
}

TEST(ScalarAluTest, TraceCarriesTheSameCountsPerSimdgroup) {
  const ScalarRun run = run_scalar_alu(true);
  ASSERT_EQ(run.result.trace.simdgroups.size(), kThreads / 32);
  const auto per_thread = expected_per_thread();
  for (const SimdgroupTrace& sg : run.result.trace.simdgroups) {
    std::array<std::uint64_t, kAluKindCount> instructions{};
    for (const TraceOp& op : sg.ops) {
      if (op.op != OpClass::kAlu) continue;
      EXPECT_EQ(op.mask, 0xFFFFFFFFu);  // every lane executes the same operations
      instructions[op.kind] += op.count;
    }
    for (std::size_t k = 0; k < kAluKindCount; ++k) {
      EXPECT_EQ(instructions[k], per_thread[k]) << alu_kind_name(static_cast<AluKind>(k));
    }
  }
}

}  // namespace
}  // namespace marlin::sim
