// Threadgroup-memory budgets and simdgroup layouts, with expected values worked out by hand
// against a 32768 B per-threadgroup limit.
#include "model/analytic/budget.h"

#include <gtest/gtest.h>

#include "model/common/input_error.h"
#include "tests/analytic/test_devices.h"

namespace marlin::analytic {
namespace {

const model::LimitsSpec kLimits = testing::test_limits();

struct BudgetCase {
  Tile tile;
  std::int64_t separate_a;  // 2 * tm * tk * 2
  std::int64_t separate_b;  // 2 * tk * tn * 2
  std::int64_t fused_a;     // tm * tk * 2
};

const BudgetCase kCases[] = {
    {{64, 64, 32}, 2 * 64 * 32 * 2, 2 * 32 * 64 * 2, 64 * 32 * 2},       // 8192 8192 4096
    {{128, 64, 16}, 2 * 128 * 16 * 2, 2 * 16 * 64 * 2, 128 * 16 * 2},    // 8192 4096 4096
    {{32, 128, 32}, 2 * 32 * 32 * 2, 2 * 32 * 128 * 2, 32 * 32 * 2},     // 4096 16384 2048
    {{128, 128, 16}, 2 * 128 * 16 * 2, 2 * 16 * 128 * 2, 128 * 16 * 2},  // 8192 8192 4096
    {{64, 64, 64}, 2 * 64 * 64 * 2, 2 * 64 * 64 * 2, 64 * 64 * 2},       // 16384 16384 8192
};
constexpr std::int64_t kStaging4 = 4 * 8 * 8 * 2;  // 512 B for 4 simdgroups

TEST(Budget, BothVariantsForTheFiveConfigurations) {
  for (const BudgetCase& c : kCases) {
    SCOPED_TRACE(tile_name(c.tile));
    const BudgetResult sep =
        threadgroup_memory_budget(c.tile, KernelVariant::kDoubleBufferedSeparate, {}, kLimits);
    ASSERT_EQ(sep.components.size(), 2u);
    EXPECT_EQ(sep.components[0].bytes, c.separate_a);
    EXPECT_EQ(sep.components[1].bytes, c.separate_b);
    EXPECT_EQ(sep.total_bytes, c.separate_a + c.separate_b);
    EXPECT_EQ(sep.limit_bytes, 32768);
    EXPECT_EQ(sep.headroom_bytes, 32768 - (c.separate_a + c.separate_b));
    EXPECT_DOUBLE_EQ(sep.percent_of_limit, 100.0 * (c.separate_a + c.separate_b) / 32768);
    EXPECT_FALSE(sep.refused);

    const BudgetResult fused =
        threadgroup_memory_budget(c.tile, KernelVariant::kFusedDequant, {}, kLimits);
    ASSERT_EQ(fused.components.size(), 2u);
    EXPECT_EQ(fused.components[0].bytes, c.fused_a);
    EXPECT_EQ(fused.components[1].bytes, kStaging4);
    EXPECT_EQ(fused.total_bytes, c.fused_a + kStaging4);
    EXPECT_FALSE(fused.refused);
  }
}

TEST(Budget, SpelledOutTotals) {
  auto total = [](Tile t, KernelVariant v) {
    return threadgroup_memory_budget(t, v, {}, kLimits).total_bytes;
  };
  const auto sep = KernelVariant::kDoubleBufferedSeparate;
  const auto fused = KernelVariant::kFusedDequant;
  EXPECT_EQ(total({64, 64, 32}, sep), 16384);
  EXPECT_EQ(total({128, 64, 16}, sep), 12288);
  EXPECT_EQ(total({32, 128, 32}, sep), 20480);
  EXPECT_EQ(total({128, 128, 16}, sep), 16384);
  EXPECT_EQ(total({64, 64, 64}, sep), 32768);
  EXPECT_EQ(total({64, 64, 32}, fused), 4608);
  EXPECT_EQ(total({128, 64, 16}, fused), 4608);
  EXPECT_EQ(total({32, 128, 32}, fused), 2560);
  EXPECT_EQ(total({128, 128, 16}, fused), 4608);
  EXPECT_EQ(total({64, 64, 64}, fused), 8704);
}

// 64x64x64 double-buffered is exactly 32768 B: it fits with no headroom.
TEST(Budget, ExactlyAtTheLimitFits) {
  const BudgetResult r =
      threadgroup_memory_budget({64, 64, 64}, KernelVariant::kDoubleBufferedSeparate, {}, kLimits);
  EXPECT_EQ(r.total_bytes, 32768);
  EXPECT_FALSE(r.refused);
  EXPECT_EQ(r.headroom_bytes, 0);
  EXPECT_DOUBLE_EQ(r.percent_of_limit, 100.0);
}

// With 8 halves of row padding: A 2 * 64 * (64 + 8) * 2 = 18432, B the same: 36864 > 32768.
TEST(Budget, PaddingPushesItOverTheLimit) {
  const BudgetResult r = threadgroup_memory_budget(
      {64, 64, 64}, KernelVariant::kDoubleBufferedSeparate, {8, 4}, kLimits);
  EXPECT_EQ(r.components[0].bytes, 18432);
  EXPECT_EQ(r.components[1].bytes, 18432);
  EXPECT_EQ(r.total_bytes, 36864);
  EXPECT_TRUE(r.refused);
  EXPECT_EQ(r.headroom_bytes, -4096);
  EXPECT_NE(r.refusal_reason.find("36864"), std::string::npos);
  // One half of padding is enough: 2 * 64 * 65 * 2 * 2 = 33280.
  const BudgetResult one = threadgroup_memory_budget(
      {64, 64, 64}, KernelVariant::kDoubleBufferedSeparate, {1, 4}, kLimits);
  EXPECT_EQ(one.total_bytes, 33280);
  EXPECT_TRUE(one.refused);
}

// Fused 64x64x32 with 8 halves of padding: A 64 * 40 * 2 = 5120, staging 4 * 8 * 16 * 2 = 1024.
// Eight simdgroups without padding: staging 8 * 8 * 8 * 2 = 1024.
TEST(Budget, FusedPaddingAndSimdgroups) {
  const BudgetResult padded =
      threadgroup_memory_budget({64, 64, 32}, KernelVariant::kFusedDequant, {8, 4}, kLimits);
  EXPECT_EQ(padded.components[0].bytes, 5120);
  EXPECT_EQ(padded.components[1].bytes, 1024);
  EXPECT_EQ(padded.total_bytes, 6144);
  const BudgetResult eight =
      threadgroup_memory_budget({64, 64, 32}, KernelVariant::kFusedDequant, {0, 8}, kLimits);
  EXPECT_EQ(eight.components[1].bytes, 1024);
  EXPECT_EQ(eight.total_bytes, 4096 + 1024);
}

TEST(Budget, RejectsBadInput) {
  const auto fused = KernelVariant::kFusedDequant;
  EXPECT_THROW(threadgroup_memory_budget({60, 64, 32}, fused, {}, kLimits), InputError);
  EXPECT_THROW(threadgroup_memory_budget({64, 64, 32}, fused, {-1, 4}, kLimits), InputError);
  EXPECT_THROW(threadgroup_memory_budget({64, 64, 32}, fused, {0, 0}, kLimits), InputError);
}

// Accumulators = (tm / rows / 8) * (tn / cols / 8); bytes per thread = acc * 64 * 2 / 32 (fp16)
// and acc * 64 * 4 / 32 (fp32); MMA per simdgroup per iteration = acc * tk / 8.
struct LayoutCase {
  Tile tile;
  SgLayout layout;
  int accumulators;
  double fp16_bytes;
  double fp32_bytes;
};

const LayoutCase kLayouts[] = {
    {{64, 64, 32}, {2, 2}, (32 / 8) * (32 / 8), 16 * 4.0, 16 * 8.0},    // 32x32 blocks: 16
    {{64, 64, 32}, {2, 4}, (32 / 8) * (16 / 8), 8 * 4.0, 8 * 8.0},      // 32x16 blocks: 8
    {{128, 64, 16}, {4, 1}, (32 / 8) * (64 / 8), 32 * 4.0, 32 * 8.0},   // 32x64 blocks: 32
    {{32, 128, 32}, {1, 4}, (32 / 8) * (32 / 8), 16 * 4.0, 16 * 8.0},   // 32x32 blocks: 16
    {{128, 128, 16}, {2, 2}, (64 / 8) * (64 / 8), 64 * 4.0, 64 * 8.0},  // 64x64 blocks: 64
    {{64, 64, 64}, {2, 2}, (32 / 8) * (32 / 8), 16 * 4.0, 16 * 8.0},    // 32x32 blocks: 16
};

TEST(Layout, AccumulatorsAndBytesPerThread) {
  for (const LayoutCase& c : kLayouts) {
    SCOPED_TRACE(tile_name(c.tile) + " " + std::to_string(c.layout.rows) + "x" +
                 std::to_string(c.layout.cols));
    const LayoutResult r = analyze_layout(c.tile, c.layout, 32);
    EXPECT_EQ(r.simdgroups, c.layout.rows * c.layout.cols);
    EXPECT_EQ(r.block_rows, c.tile.tm / c.layout.rows);
    EXPECT_EQ(r.block_cols, c.tile.tn / c.layout.cols);
    EXPECT_EQ(r.accumulators, c.accumulators);
    EXPECT_DOUBLE_EQ(r.bytes_per_thread_fp16, c.fp16_bytes);
    EXPECT_DOUBLE_EQ(r.bytes_per_thread_fp32, c.fp32_bytes);
    EXPECT_EQ(r.mma_per_iteration, c.accumulators * (c.tile.tk / 8));
    // All simdgroups' MMAs together do the tile's 2 * tm * tn * tk FLOPs.
    EXPECT_EQ(r.threadgroup_flops_per_iteration,
              std::int64_t{2} * c.tile.tm * c.tile.tn * c.tile.tk);
  }
}

// 64x64x32 on a 2x2 grid: 16 accumulators * 4 K steps = 64 MMAs of 1024 FLOPs per simdgroup.
TEST(Layout, MmaCountsSpelledOut) {
  EXPECT_EQ(kFlopsPerMma, 1024);
  const LayoutResult r = analyze_layout({64, 64, 32}, {2, 2}, 32);
  EXPECT_EQ(r.mma_per_iteration, 64);
  EXPECT_EQ(r.threadgroup_flops_per_iteration, 4 * 64 * 1024);
}

TEST(Layout, RejectsLayoutsThatDoNotSplitTheTile) {
  EXPECT_THROW(analyze_layout({64, 64, 32}, {3, 1}, 32), InputError);   // 64 / 3
  EXPECT_THROW(analyze_layout({64, 64, 32}, {16, 1}, 32), InputError);  // 4-row blocks
  EXPECT_THROW(analyze_layout({64, 64, 32}, {0, 4}, 32), InputError);
  EXPECT_THROW(analyze_layout({64, 64, 32}, {2, 2}, 0), InputError);
}

TEST(Layout, DefaultLayoutIsTheMostSquare) {
  auto same = [](SgLayout a, SgLayout b) { return a.rows == b.rows && a.cols == b.cols; };
  // 1x4: 64x16 (ratio 4); 2x2: 32x32 (1); 4x1: 16x64 (4).
  EXPECT_TRUE(same(default_layout({64, 64, 32}, 4), {2, 2}));
  // 1x2: 64x32 and 2x1: 32x64 tie at ratio 2: fewer rows wins.
  EXPECT_TRUE(same(default_layout({64, 64, 32}, 2), {1, 2}));
  // 1x4 gives 32x32 blocks.
  EXPECT_TRUE(same(default_layout({32, 128, 32}, 4), {1, 4}));
  // 2x2: 64x32 and 4x1: 32x64 tie at ratio 2: 2x2.
  EXPECT_TRUE(same(default_layout({128, 64, 16}, 4), {2, 2}));
  // 8 simdgroups on 128x128: 2x4 (64x32) and 4x2 (32x64) tie: 2x4.
  EXPECT_TRUE(same(default_layout({128, 128, 16}, 8), {2, 4}));
  // 8x8 cannot be split four ways into 8-aligned blocks.
  EXPECT_THROW(default_layout({8, 8, 8}, 4), InputError);
  EXPECT_THROW(default_layout({64, 64, 32}, 0), InputError);
}

}  // namespace
}  // namespace marlin::analytic
