// Tests of the small plain checkers of tools/validate: expression evaluation, stripe assignment,
// layout coverage, dequant counts, number formats. Expected values are written out by hand or
// come from a reference loop in the test.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/common/input_error.h"
#include "tools/validate/dequant_count.h"
#include "tools/validate/expression.h"
#include "tools/validate/fp_formats.h"
#include "tools/validate/layout_coverage.h"
#include "tools/validate/stripe.h"

namespace marlin::validate {
namespace {

TEST(Expression, PrecedenceParenthesesAndFunctions) {
  EXPECT_DOUBLE_EQ(evaluate_expression("4 * K * (M + N)", {{"K", 32}, {"M", 64}, {"N", 64}}),
                   16384.0);  // 4 * 32 * 128
  EXPECT_DOUBLE_EQ(evaluate_expression("2 + 3 * 4 - 6 / 4", {}), 12.5);
  EXPECT_DOUBLE_EQ(evaluate_expression("ceil(12 / 5)", {}), 3.0);
  EXPECT_DOUBLE_EQ(evaluate_expression("min(40 / 8, 3) + max(1, 2)", {}), 5.0);
  EXPECT_DOUBLE_EQ(evaluate_expression("32768 > 32768 ? 40 : 10", {}), 10.0);
  EXPECT_DOUBLE_EQ(evaluate_expression("0x6400", {}), 25600.0);
  EXPECT_DOUBLE_EQ(evaluate_expression("32e12 / 546e9", {}), 32e12 / 546e9);
}

TEST(Expression, IntegerDivisionTruncatesLikeUint) {
  EXPECT_DOUBLE_EQ(evaluate_expression("7 / 2", {}, true), 3.0);
  EXPECT_DOUBLE_EQ(evaluate_expression("7 / 2", {}, false), 3.5);
  EXPECT_DOUBLE_EQ(evaluate_expression("(simd_id / 2) * 16", {{"simd_id", 3}}, true), 16.0);
  EXPECT_DOUBLE_EQ(evaluate_expression("11 % 3", {}), 2.0);
}

TEST(Expression, ErrorsNameTheExpression) {
  try {
    evaluate_expression("2 * tile_x", {});
    FAIL() << "expected InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("2 * tile_x"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("tile_x"), std::string::npos);
  }
  EXPECT_THROW(evaluate_expression("(1 + 2", {}), InputError);
  EXPECT_THROW(evaluate_expression("4 / 0", {}), InputError);
  EXPECT_THROW(evaluate_expression("1.5 % 2", {}), InputError);
  EXPECT_THROW(evaluate_expression("3 3", {}), InputError);
}

// Reference: the owner of every tile, written as the plain loops of the document's algorithm.
std::vector<std::vector<int>> reference_owner(int m_tiles, int n_tiles, int tgs) {
  const int total = m_tiles * n_tiles;
  const int per_tg = (total + tgs - 1) / tgs;
  std::vector<std::vector<int>> owner(m_tiles, std::vector<int>(n_tiles, -1));
  for (int tg = 0; tg < tgs; ++tg) {
    for (int u = tg * per_tg; u < std::min(tg * per_tg + per_tg, total); ++u) {
      owner[u % m_tiles][u / m_tiles] = tg;
    }
  }
  return owner;
}

TEST(Stripe, ThreeByThreeOnFiveMatchesTheAlgorithm) {
  const StripeProblem problem{3, 3, 5, 1};
  const StripeAssignment a = assign_stripes(problem);
  EXPECT_EQ(a.total_work, 9);
  EXPECT_EQ(a.work_per_tg, 2);  // ceil(9 / 5)
  const auto owner = reference_owner(3, 3, 5);
  std::string expected;
  for (int r = 0; r < 3; ++r) {
    if (r > 0) expected += " / ";
    for (int c = 0; c < 3; ++c) {
      if (c > 0) expected += " ";
      expected += std::to_string(owner[r][c]);
    }
  }
  EXPECT_EQ(assignment_grid(problem, a), expected);
  // The document's picture, independently: linear l = col * 3 + row, owner = l / 2.
  EXPECT_EQ(assignment_grid(problem, a), "0 1 3 / 0 2 3 / 1 2 4");
}

TEST(Stripe, WorkedExampleFortyEightBySixtyFour) {
  // M = 48, N = 64, 16x16 tiles: 3 x 4 tiles, 12 units on 5 TGs, ceil(12 / 5) = 3 each.
  const StripeAssignment a = assign_stripes({3, 4, 5, 1});
  ASSERT_EQ(a.threadgroups.size(), 5U);
  EXPECT_EQ(a.work_per_tg, 3);
  EXPECT_EQ(tile_list(a.threadgroups[1]), "3, 4, 5");
  EXPECT_EQ(position_list(a.threadgroups[1]), "(0,1), (1,1), (2,1)");
  EXPECT_EQ(a.threadgroups[4].work_start, 12);
  EXPECT_EQ(a.threadgroups[4].work_end, 12);
  EXPECT_EQ(tile_list(a.threadgroups[4]), "(none)");
  EXPECT_EQ(units_per_threadgroup(a), (std::vector<std::int64_t>{3, 3, 3, 3, 0}));
}

TEST(Stripe, KParallelCoversEveryTileSliceOnce) {
  const StripeAssignment a = assign_stripes({3, 4, 5, 2});
  EXPECT_EQ(a.total_work, 24);
  std::vector<int> seen(24, 0);
  for (const ThreadgroupWork& w : a.threadgroups) {
    for (const WorkUnit& u : w.units)
      ++seen[static_cast<std::size_t>(u.tile_linear * 2 + u.k_slice)];
  }
  for (const int count : seen) EXPECT_EQ(count, 1);
  EXPECT_THROW(assign_stripes({0, 4, 5, 1}), InputError);
}

TEST(Stripe, RoundRobinSevenOnFive) {
  EXPECT_EQ(round_robin_loads(7, 5), (std::vector<std::int64_t>{2, 2, 1, 1, 1}));
  // The stripe split of the same 7 tiles: ceil(7 / 5) = 2 -> 2, 2, 2, 1, 0.
  EXPECT_EQ(units_per_threadgroup(assign_stripes({7, 1, 5, 1})),
            (std::vector<std::int64_t>{2, 2, 2, 1, 0}));
}

TEST(LayoutCoverage, ArchitectureTwoByFourCoversHalfTheTile) {
  // 4 simdgroups of 2x4 8x8 tiles = 16x32 each; rows 0 or 16, cols 0 or 32: 32 x 64 covered.
  const LayoutCoverage c =
      layout_coverage({64, 64, 4, 2, 4, "(simd_id / 2) * 16", "(simd_id % 2) * 32"});
  EXPECT_EQ(c.covered_elements, 32 * 64);
  EXPECT_DOUBLE_EQ(c.coverage_percent, 50.0);
  EXPECT_EQ(c.overlapping_elements, 0);
  EXPECT_EQ(row_range(c.blocks[2]), "16-31");
  EXPECT_EQ(col_range(c.blocks[1]), "32-63");
}

TEST(LayoutCoverage, TwoByTwoOfFourByFourCoversAll) {
  const LayoutCoverage c = layout_coverage(
      {64, 64, 4, 4, 4, "(simd_id / 2) * (SG_M_TILES * 8)", "(simd_id % 2) * (SG_N_TILES * 8)"});
  EXPECT_EQ(c.covered_elements, 4096);
  EXPECT_DOUBLE_EQ(c.coverage_percent, 100.0);
  EXPECT_EQ(offset_values({64, 64, 4, 4, 4, "(simd_id / 2) * 32", "0"}, true), "0 or 32");
}

TEST(LayoutCoverage, BlocksOutsideTheTileAreCounted) {
  // 4 simdgroups of 64x32 blocks stacked at rows 0, 64 on a 64x64 tile: half lies outside.
  const LayoutCoverage c =
      layout_coverage({64, 64, 4, 8, 4, "(simd_id / 2) * 64", "(simd_id % 2) * 32"});
  EXPECT_EQ(c.outside_elements, 2 * 64 * 32);
  EXPECT_DOUBLE_EQ(c.coverage_percent, 100.0);
}

TEST(DequantCount, SeparateDequantizesEachElementOnce) {
  const DequantCount c = count_dequant({{64, 64, 32}, DequantKernel::kSeparate, 8, 4, 0, 0});
  EXPECT_EQ(c.distinct_elements, 32 * 64);
  EXPECT_DOUBLE_EQ(c.ops, 32 * 64 * 8);                          // 16,384
  EXPECT_EQ(c.useful_flops, 2 * 64 * 64 * 32);                   // 262,144
  EXPECT_DOUBLE_EQ(c.overhead_percent, 16384.0 / 262144 * 100);  // 6.25
}

TEST(DequantCount, FusedRedoesFragmentsPerRowBlock) {
  // 4 SG x 4 kt x 4 mi x 4 ni fragments of 64 elements = 16,384 elements, x 8 ops.
  const DequantCount c = count_dequant({{64, 64, 32}, DequantKernel::kFused, 8, 4, 4, 4});
  EXPECT_EQ(c.dequantized_elements, 4 * 4 * 4 * 4 * 64);
  EXPECT_DOUBLE_EQ(c.ops, 131072.0);
  EXPECT_DOUBLE_EQ(c.overhead_percent, 50.0);
  EXPECT_THROW(count_dequant({{64, 64, 32}, DequantKernel::kFused, 8, 4, 0, 4}), InputError);
}

TEST(FpFormats, E2M1MatchesTheNormalAndSubnormalFormulas) {
  for (int code = 0; code < 16; ++code) {
    std::string bits;
    for (int b = 3; b >= 0; --b) bits += ((code >> b) & 1) != 0 ? '1' : '0';
    const int e = (code >> 1) & 3;
    const int m = code & 1;
    double expected = e == 0 ? m * 0.5 : std::pow(2.0, e - 1) * (1 + m * 0.5);
    if ((code & 8) != 0) expected = -expected;
    EXPECT_DOUBLE_EQ(fp4_e2m1_value(bits), expected) << bits;
  }
  EXPECT_THROW(fp4_e2m1_value("012"), InputError);
}

TEST(FpFormats, HalfBitPatterns) {
  EXPECT_DOUBLE_EQ(fp16_value(0x6400), 1024.0);  // exponent 25: 2^(25-15)
  EXPECT_EQ(fp16_exponent_field(0x6400), 25);
  EXPECT_DOUBLE_EQ(fp16_value(0x6407), 1031.0);  // 1024 + 7
  EXPECT_DOUBLE_EQ(fp16_value(0xB800), -0.5);
  EXPECT_EQ(fp4_to_fp16_bits("0001"), "0x3800");  // 0.5 = 14 << 10
  EXPECT_EQ(fp4_to_fp16_bits("0111"), "0x4600");  // 6.0 = (3 + 14) << 10 | 1 << 9
  EXPECT_EQ(fp4_to_fp16_bits("1000"), "0x8000");  // -0
}

}  // namespace
}  // namespace marlin::validate
