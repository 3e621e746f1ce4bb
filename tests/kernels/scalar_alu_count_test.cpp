// The dequantization of kernels/common/dequant.h is counted from what executes: one packed
// word through dequant_fp4 and dequant_u4 (kernels/dequant.metal, one thread, K = 8, N = 1)
// against an operation count written out by hand from the kernel source.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/params.h"
#include "sim/runtime/launch.h"

namespace marlin::kernels {
namespace {

using sim::AluKind;
using sim::kAluKindCount;

// Nibbles, lowest first: 2 1 5 9 D 3 B 7.
constexpr std::uint32_t kWord = 0x7B3D9512u;
constexpr float kScale = 2.0f;

using AluCounts = std::array<std::uint64_t, kAluKindCount>;

AluCounts counts(std::initializer_list<std::pair<AluKind, std::uint64_t>> kinds) {
  AluCounts c{};
  for (const auto& [k, n] : kinds) c[static_cast<std::size_t>(k)] = n;
  return c;
}

struct WordRun {
  sim::LaunchResult result;
  std::vector<_Float16> out;
};

WordRun run_one_word(const std::string& kernel) {
  std::vector<std::uint32_t> codes = {kWord};
  std::vector<_Float16> scales = {static_cast<_Float16>(kScale)};
  std::vector<std::uint32_t> zeros = {0};
  WordRun run;
  run.out.assign(8, static_cast<_Float16>(-999.0f));
  DequantParams params{8, 1, 8, 0};  // K = 8, N = 1, one group, U4B8 (zero 8)
  sim::LaunchSpec spec;
  spec.kernel = kernel;
  spec.threadgroups = {1, 1, 1};
  spec.threads_per_threadgroup = {1, 1, 1};
  spec.buffers = {{0, {codes.data(), 4}},
                  {1, {scales.data(), 2}},
                  {2, {zeros.data(), 4}},
                  {3, {run.out.data(), run.out.size() * 2}},
                  {4, {&params, sizeof(params)}}};
  spec.limits = sim::DeviceLimits{1024, 32768};
  spec.options.trace = true;
  run.result = sim::launch(spec);
  return run;
}

// The kernel work both launches share, per thread (all `uint` locals and parameters):
//   col >= p.n || k8 >= p.k                   compare 2 (k8 = gid.y * 8 is vector-component
//                                             arithmetic on plain values: not counted)
//   codes[gid.y * p.n + col]                  int add 1 (gid.y * p.n is plain: not counted)
//   scale_of: (k / p.group_size) * p.n + col  int mul 2 (divide, multiply), int add 1
//   store loop, j = 0..7, `j < 8 && k8 + j < p.k`: compare 8 * 2 + 1, int add 8;
//     ++j int add 8; (k8 + j) * p.n + col int add 16, int mul 8
AluCounts kernel_shell() {
  return counts({{AluKind::kCompareSelect, 2 + 17},
                 {AluKind::kIntAdd, 1 + 1 + 8 + 8 + 16},
                 {AluKind::kIntMul, 2 + 8}});
}

AluCounts plus(AluCounts a, const AluCounts& b) {
  for (std::size_t k = 0; k < kAluKindCount; ++k) a[k] += b[k];
  return a;
}

void expect_counts(const WordRun& run, const AluCounts& expected) {
  ASSERT_TRUE(run.result.ok());
  std::array<std::uint64_t, kAluKindCount> traced{};
  ASSERT_EQ(run.result.trace.simdgroups.size(), 1u);
  for (const sim::TraceOp& op : run.result.trace.simdgroups[0].ops) {
    if (op.op == sim::OpClass::kAlu) traced[op.kind] += op.count;
  }
  for (std::size_t k = 0; k < kAluKindCount; ++k) {
    const char* name = sim::alu_kind_name(static_cast<AluKind>(k));
    EXPECT_EQ(run.result.stats.alu_lane_ops[k], expected[k]) << name;
    EXPECT_EQ(traced[k], expected[k]) << name;  // one lane: instructions = lane ops
  }
}

TEST(ScalarAluCount, Fp4WordDequantization) {
  const WordRun run = run_one_word("dequant_fp4");
  // E2M1 values of the nibbles 2 1 5 9 D 3 B 7 (bit 3 = sign), times the scale.
  const float expected[8] = {1.0f, 0.5f, 3.0f, -0.5f, -3.0f, 1.5f, -1.5f, 6.0f};
  for (int j = 0; j < 8; ++j) EXPECT_EQ(static_cast<float>(run.out[j]), expected[j] * kScale);
  // dequant_fp4_word, loop j = 0..7 marked for full unrolling with a constant trip count: no
  // compare or increment, and 4 * j is a constant in each copy. Per value:
  //   (word >> (4 * j)) & 0xFu              shift 1, logic 1
  //   e2m1_to_half: ((code & 0x8u) << 12) | ((code & 0x7u) << 9)
  //                                          logic 3, shift 2 (ushort(...) and as_type: free)
  //   * 16384.0h, * scale                    fp16 mul 2
  const AluCounts dequant = counts(
      {{AluKind::kIntShift, 8 * 3}, {AluKind::kIntLogic, 8 * 4}, {AluKind::kFp16Mul, 8 * 2}});
  expect_counts(run, plus(kernel_shell(), dequant));
}

TEST(ScalarAluCount, U4WordDequantization) {
  const WordRun run = run_one_word("dequant_u4");
  // (q - 8) * scale for the nibbles 2 1 5 9 13 3 11 7.
  const int nibbles[8] = {2, 1, 5, 9, 13, 3, 11, 7};
  for (int j = 0; j < 8; ++j) {
    EXPECT_EQ(static_cast<float>(run.out[j]), static_cast<float>(nibbles[j] - 8) * kScale);
  }
  // The kernel: `p.has_zero_points != 0` compares two plain values (not counted).
  // dequant_u4_word: 1024.0h + zero fp16 add 1; loop j = 0..3 unrolled (no compare or
  // increment; 4 * j and j + 4 are constants in each copy); per pair:
  //   ((word >> (4 * j)) & 0x000F000Fu) | 0x64006400u   shift 1, logic 2
  //   (as_type<half2>(pair) - bias) * scale             fp16 add 2, fp16 mul 2
  const AluCounts dequant = counts({{AluKind::kFp16Add, 1 + 4 * 2},
                                    {AluKind::kIntShift, 4},
                                    {AluKind::kIntLogic, 4 * 2},
                                    {AluKind::kFp16Mul, 4 * 2}});
  expect_counts(run, plus(kernel_shell(), dequant));
}

}  // namespace
}  // namespace marlin::kernels
