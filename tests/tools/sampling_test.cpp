// The pieces of sampled simulation (tools/cli/sampling.h), each against values worked out by
// hand: the K unit and the sampled lengths, the slice's block, the scaled device, the DRAM
// saturation test, the renumbered traces, the distinct-byte count and the extrapolation.
#include "tools/cli/sampling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "kernels/launch/kernel_catalog.h"
#include "model/device/profile_loader.h"
#include "tools/cli/sample_l2.h"

namespace marlin::cli {
namespace {

kernels::GemmKernel fused_64x64x32() {
  return kernels::find_gemm_kernel("marlin_gemm_fused_fp4", analytic::Tile{64, 64, 32});
}

TEST(Sampling, KUnitIsTheStepRoundedToTheScaleGroup) {
  kernels::GemmProblem p;
  p.k_parallel = 1;
  // Step 32, group 128: lcm 128. Group 48: lcm(32, 48) = 96. Per-column scales: the step.
  EXPECT_EQ(k_sampling_unit(fused_64x64x32(), p, 128), 128);
  EXPECT_EQ(k_sampling_unit(fused_64x64x32(), p, 48), 96);
  EXPECT_EQ(k_sampling_unit(fused_64x64x32(), p, kernels::kPerColumnGroup), 32);
  p.k_parallel = 3;  // step 96, group 128: lcm 384
  EXPECT_EQ(k_sampling_unit(fused_64x64x32(), p, 128), 384);
}

TEST(Sampling, KIsSampledOnlyWhenLongEnough) {
  const model::DeviceSpec device = model::load_device("m4max");
  const sim::Dim3 grid = main_grid(fused_64x64x32(), {.m = 16, .n = 2048, .k = 4096});
  const auto k_values = [&](std::int64_t k) {
    return plan_sampling(device, fused_64x64x32(), {.m = 16, .n = 2048, .k = k}, 128, grid, 1)
        .k_values;
  };
  using Ks = std::vector<std::int64_t>;
  // 32 threadgroups on 40 cores, one per core: a slice of 1. K_low = eight steps of 32 = 256,
  // K_high = 512: 1 x (8 + 16) = 24 threadgroup-steps, within kSteadySampleWork.
  EXPECT_EQ(k_values(4096), (Ks{256, 512}));
  // 4 * 512 = 2048 is the shortest K sampled at eight steps; below it, four steps
  // (K_low = 128, K_high = 256) down to 4 * 256 = 1024.
  EXPECT_EQ(k_values(2048), (Ks{256, 512}));
  EXPECT_EQ(k_values(1920), (Ks{128, 256}));
  EXPECT_EQ(k_values(1024), (Ks{128, 256}));
  EXPECT_EQ(k_values(896), (Ks{896}));
  // Not a multiple of the unit: the full K.
  EXPECT_EQ(k_values(4096 + 32), (Ks{4096 + 32}));
}

TEST(Sampling, LargeSlicesKeepFourKSteps) {
  const model::DeviceSpec device = model::load_device("m4max");
  kernels::GemmProblem p{.m = 4096, .n = 4096, .k = 4096};
  // A slice of 103 threadgroups: eight steps would be 103 x 24 = 2472 threadgroup-steps, over
  // kSteadySampleWork (512); four steps, 103 x 12 = 1236.
  EXPECT_EQ(
      plan_sampling(device, fused_64x64x32(), p, 128, main_grid(fused_64x64x32(), p), 1).k_values,
      (std::vector<std::int64_t>{128, 256}));
  // Every threadgroup simulated (--sample-cores 40): 21 threadgroups (21 x 24 = 504), eight
  // steps; 22 (528), four.
  p = {.m = 16, .n = 21 * 64, .k = 4096};
  EXPECT_EQ(
      plan_sampling(device, fused_64x64x32(), p, 128, main_grid(fused_64x64x32(), p), 40).k_values,
      (std::vector<std::int64_t>{256, 512}));
  p.n = 22 * 64;
  EXPECT_EQ(
      plan_sampling(device, fused_64x64x32(), p, 128, main_grid(fused_64x64x32(), p), 40).k_values,
      (std::vector<std::int64_t>{128, 256}));
}

TEST(Sampling, SliceIsTheMostLoadedCoresShareInAGridShapedBlock) {
  const model::DeviceSpec device = model::load_device("m4max");  // 40 cores
  const kernels::GemmProblem p{.m = 4096, .n = 4096, .k = 4096};
  const sim::Dim3 grid = main_grid(fused_64x64x32(), p);
  ASSERT_EQ(grid.x, 64u);
  ASSERT_EQ(grid.y, 64u);
  // 4096 threadgroups over 40 cores: the busiest core runs ceil(4096 / 40) = 103. A square
  // grid gives a square block: round(sqrt(103)) = 10 columns, ceil(103 / 10) = 11 rows.
  SamplingPlan plan = plan_sampling(device, fused_64x64x32(), p, 128, grid, 1);
  EXPECT_EQ(plan.cores, 1);
  EXPECT_EQ(plan.slice.x, 10u);
  EXPECT_EQ(plan.slice.y, 11u);
  EXPECT_EQ(plan.slice.count, 103u);
  EXPECT_EQ(threadgroups_in_slice(plan.slice, grid), 103);
  // Two cores: 206 threadgroups, round(sqrt(206)) = 14 columns, ceil(206 / 14) = 15 rows.
  plan = plan_sampling(device, fused_64x64x32(), p, 128, grid, 2);
  EXPECT_EQ(plan.slice.x, 14u);
  EXPECT_EQ(plan.slice.y, 15u);
  EXPECT_EQ(threadgroups_in_slice(plan.slice, grid), 206);

  // One row of 320 tiles: ceil(320 / 40) = 8 threadgroups; the block is
  // round(sqrt(8 * 320)) = 51 columns by ceil(8 / 51) = 1 row, holding the first eight.
  const kernels::GemmProblem wide{.m = 16, .n = 320 * 64, .k = 4096};
  plan = plan_sampling(device, fused_64x64x32(), wide, 128, main_grid(fused_64x64x32(), wide), 1);
  EXPECT_EQ(plan.slice.x, 51u);
  EXPECT_EQ(plan.slice.y, 1u);
  EXPECT_EQ(threadgroups_in_slice(plan.slice, {320, 1, 1}), 8);
  // Decode, one row of 64 tiles: ceil(64 / 40) = 2 threadgroups on the busiest core, too few
  // to share lines as the grid's do (2 to 7), and at most 128 in all: every threadgroup is
  // simulated. Likewise 128 tiles (4 per core).
  for (const std::int64_t tiles : {64, 128}) {
    const kernels::GemmProblem decode{.m = 16, .n = tiles * 64, .k = 4096};
    plan = plan_sampling(device, fused_64x64x32(), decode, 128, main_grid(fused_64x64x32(), decode),
                         1);
    EXPECT_EQ(plan.slice.x, 0u) << tiles;
    EXPECT_EQ(plan.cores, 40) << tiles;
  }
  // 129 tiles (4 per core) and 280 tiles (7): more than 128 threadgroups, sliced all the same.
  for (const std::int64_t tiles : {129, 280}) {
    const kernels::GemmProblem decode{.m = 16, .n = tiles * 64, .k = 4096};
    plan = plan_sampling(device, fused_64x64x32(), decode, 128, main_grid(fused_64x64x32(), decode),
                         1);
    EXPECT_EQ(threadgroups_in_slice(plan.slice, main_grid(fused_64x64x32(), decode)),
              (tiles + 39) / 40)
        << tiles;
  }

  // Decode with 128-wide tiles: 32 threadgroups on 40 cores, one per core: the slice is one
  // threadgroup, the first.
  const kernels::GemmKernel fused_32x128x32 =
      kernels::find_gemm_kernel("marlin_gemm_fused_fp4", analytic::Tile{32, 128, 32});
  const kernels::GemmProblem one_row{.m = 1, .n = 4096, .k = 4096};
  plan =
      plan_sampling(device, fused_32x128x32, one_row, 128, main_grid(fused_32x128x32, one_row), 1);
  EXPECT_EQ(plan.cores, 1);
  EXPECT_EQ(threadgroups_in_slice(plan.slice, {32, 1, 1}), 1);
  EXPECT_EQ(threadgroups_in_slice(plan.slice, main_grid(fused_32x128x32, one_row)), 1);

  // A grid no bigger than the slice is not sliced.
  plan = plan_sampling(device, fused_64x64x32(), {.m = 16, .n = 64, .k = 64}, 128, {1, 1, 1}, 1);
  EXPECT_EQ(plan.slice.x, 0u);
  EXPECT_EQ(plan.cores, 40);
}

TEST(Sampling, PreciseSamplingRunsGridsUpTo512WholeWithKSamplesFourApart) {
  const model::DeviceSpec device = model::load_device("m4max");  // 40 cores
  const auto plan = [&](std::int64_t m, std::int64_t k, SamplePrecision precision) {
    const kernels::GemmProblem p{.m = m, .n = 4096, .k = k};
    return plan_sampling(device, fused_64x64x32(), p, 128, main_grid(fused_64x64x32(), p), 1,
                         precision);
  };
  using Ks = std::vector<std::int64_t>;
  // M = 512: 8 x 64 = 512 threadgroups, 13 on the busiest core. Fast: a slice of 13, K_low of
  // eight steps (13 x (8 + 16) = 312 threadgroup-steps, within kSteadySampleWork; and
  // 2048 >= 4 x 512).
  SamplingPlan fast = plan(512, 2048, SamplePrecision::kFast);
  EXPECT_EQ(threadgroups_in_slice(fast.slice, {64, 8, 1}), 13);
  EXPECT_EQ(fast.k_values, (Ks{256, 512}));
  // Precise: every threadgroup; eight steps would be 512 x (8 + 32) threadgroup-steps, so four:
  // K_low = 128 and K_high = 4 x 128 = 512, as 2048 >= 4 x 512.
  SamplingPlan precise = plan(512, 2048, SamplePrecision::kPrecise);
  EXPECT_EQ(precise.slice.x, 0u);
  EXPECT_EQ(precise.cores, 40);
  EXPECT_EQ(precise.k_values, (Ks{128, 512}));
  // K = 1024 is short of 4 x 512: the samples fall back to 2 x K_low.
  EXPECT_EQ(plan(512, 1024, SamplePrecision::kPrecise).k_values, (Ks{128, 256}));
  // M = 576: 9 x 64 = 576 threadgroups, over 512: sliced as fast sampling does.
  precise = plan(576, 2048, SamplePrecision::kPrecise);
  fast = plan(576, 2048, SamplePrecision::kFast);
  EXPECT_EQ(threadgroups_in_slice(precise.slice, {64, 9, 1}), 15);
  EXPECT_EQ(precise.slice.x, fast.slice.x);
  EXPECT_EQ(precise.k_values, fast.k_values);
}

TEST(Sampling, GridsOfUpTo128WithSeveralPerCoreRunWholeOnSmallDevices) {
  // m1 has 8 cores: 512 x 1024 in 64x64 tiles is 8 x 16 = 128 threadgroups, 16 on the busiest
  // core, and runs whole; 576 x 1024 (9 x 16 = 144) is sliced to ceil(144 / 8) = 18.
  const model::DeviceSpec m1 = model::load_device("m1");
  const auto plan = [&](const model::DeviceSpec& device, std::int64_t m, std::int64_t n) {
    const kernels::GemmProblem p{.m = m, .n = n, .k = 2048};
    return plan_sampling(device, fused_64x64x32(), p, 128, main_grid(fused_64x64x32(), p), 1);
  };
  SamplingPlan whole = plan(m1, 512, 1024);
  EXPECT_EQ(whole.slice.x, 0u);
  EXPECT_EQ(whole.cores, 8);
  const SamplingPlan sliced = plan(m1, 576, 1024);
  EXPECT_EQ(sliced.cores, 1);
  EXPECT_EQ(threadgroups_in_slice(sliced.slice, {16, 9, 1}), 18);
  // m4pro-16c: 256 x 2048 is 4 x 32 = 128 threadgroups, 8 per core: whole.
  whole = plan(model::load_device("m4pro-16c"), 256, 2048);
  EXPECT_EQ(whole.slice.x, 0u);
  EXPECT_EQ(whole.cores, 16);
  // A grid of no more threadgroups than cores keeps its slice of one (decode rows): 8 x 1 on m1.
  const SamplingPlan decode = plan(m1, 16, 512);
  EXPECT_EQ(decode.cores, 1);
  EXPECT_EQ(threadgroups_in_slice(decode.slice, {8, 1, 1}), 1);
}

TEST(Sampling, GridsWithManyRaggedEdgeThreadgroupsAreNotSliced) {
  const model::DeviceSpec device = model::load_device("m4max");
  // 65 x 65 tiles (M = N = 4100): the last row and column are ragged, 65 + 65 - 1 = 129 of
  // 4225 threadgroups = 3.1%: sliced.
  kernels::GemmProblem p{.m = 4100, .n = 4100, .k = 4096};
  EXPECT_NE(
      plan_sampling(device, fused_64x64x32(), p, 128, main_grid(fused_64x64x32(), p), 1).slice.x,
      0u);
  // 4 x 80 tiles (M = 200, N = 5120): the last row, 80 of 320 = 25%: not sliced.
  p = {.m = 200, .n = 5120, .k = 4096};
  EXPECT_EQ(
      plan_sampling(device, fused_64x64x32(), p, 128, main_grid(fused_64x64x32(), p), 1).slice.x,
      0u);
  // One row of 320 tiles with M = 16: every threadgroup is ragged alike: sliced.
  p = {.m = 16, .n = 320 * 64, .k = 4096};
  EXPECT_NE(
      plan_sampling(device, fused_64x64x32(), p, 128, main_grid(fused_64x64x32(), p), 1).slice.x,
      0u);
}

TEST(Sampling, SliceCountsClipToTheGrid) {
  // Block 4 x 3 holding 10: rows 0 and 1 whole, row 2 columns 0 and 1. In a 3 x 5 grid only
  // columns 0..2 exist: 3 + 3 + 2 = 8.
  const sim::ThreadgroupSlice slice{.x = 4, .y = 3, .count = 10};
  EXPECT_EQ(threadgroups_in_slice(slice, {3, 5, 1}), 8);
  EXPECT_EQ(threadgroups_in_slice(slice, {8, 8, 1}), 10);
  EXPECT_EQ(threadgroups_in_slice(slice, {8, 8, 2}), 10);  // z = 0 only
  EXPECT_EQ(threadgroups_in_slice(sim::ThreadgroupSlice{}, {8, 8, 2}), 128);
  // Strided: 2 of every 5 of 12: indices 0, 1, 5, 6, 10, 11.
  EXPECT_EQ(threadgroups_in_slice({.x = 2, .period = 5}, {12, 1, 1}), 6);
}

TEST(Sampling, StripedKernelTakesEveryCoresThThreadgroup) {
  const model::DeviceSpec device = model::load_device("m4max");
  const kernels::GemmKernel striped =
      kernels::find_gemm_kernel("marlin_gemm_fp4_striped", analytic::Tile{64, 64, 32});
  // 8 x 64 tiles x 4 slices = 2048 work units over a 520-threadgroup wave: 520 launched, the
  // busiest core runs 13 of them (0, 40, ..., 480).
  kernels::GemmProblem p{.m = 512, .n = 4096, .k = 4096, .k_parallel = 4, .num_threadgroups = 520};
  ASSERT_EQ(main_grid(striped, p).x, 520u);
  SamplingPlan plan = plan_sampling(device, striped, p, 128, main_grid(striped, p), 1);
  EXPECT_EQ(plan.slice.period, 40u);
  EXPECT_EQ(plan.slice.x, 1u);
  EXPECT_EQ(threadgroups_in_slice(plan.slice, {520, 1, 1}), 13);
  // 1 x 32 tiles x 4 slices = 128 units: only 128 threadgroups are launched, still sliced.
  p.m = 64;
  p.n = 2048;
  EXPECT_EQ(main_grid(striped, p).x, 128u);
  // 1 x 8 tiles x 2 slices = 16 units, fewer than the cores: not sliced.
  p = {.m = 32, .n = 512, .k = 2048, .k_parallel = 2, .num_threadgroups = 520};
  EXPECT_EQ(main_grid(striped, p).x, 16u);
  plan = plan_sampling(device, striped, p, 128, main_grid(striped, p), 1);
  EXPECT_EQ(plan.slice.x, 0u);
}

// The rows of A and columns of W that the threadgroups `slice` runs read, by enumerating them:
// threadgroup (x, y) of a tiled grid reads rows [y tm, (y + 1) tm) and columns
// [x tn, (x + 1) tn), clipped to the problem.
OperandRegion enumerated_region(const kernels::GemmKernel& kernel, const kernels::GemmProblem& p,
                                const sim::ThreadgroupSlice& slice) {
  const sim::Dim3 grid = main_grid(kernel, p);
  OperandRegion region;
  std::uint64_t linear = 0;
  for (std::uint32_t y = 0; y < grid.y; ++y) {
    for (std::uint32_t x = 0; x < grid.x; ++x) {
      if (!slice.runs(linear++, x, y, 0)) continue;
      region.rows = std::max(region.rows, std::min(p.m, std::int64_t{y + 1} * kernel.tile.tm));
      region.columns =
          std::max(region.columns, std::min(p.n, std::int64_t{x + 1} * kernel.tile.tn));
    }
  }
  return region;
}

TEST(Sampling, OperandRegionCoversTheSlicesThreadgroups) {
  const model::DeviceSpec device = model::load_device("m4max");
  const kernels::GemmKernel tall =
      kernels::find_gemm_kernel("marlin_gemm_fp4", analytic::Tile{128, 64, 16});
  const std::vector<std::pair<kernels::GemmKernel, kernels::GemmProblem>> cases = {
      {fused_64x64x32(), {.m = 4096, .n = 4096, .k = 4096}},  // 103 threadgroups: 10 x 11
      {fused_64x64x32(), {.m = 16, .n = 20480, .k = 4096}},   // one row of tiles
      {fused_64x64x32(), {.m = 1000, .n = 4000, .k = 2048}},  // ragged, few on the edge
      {tall, {.m = 1024, .n = 4096, .k = 2048}},  // 13 threadgroups: 10 x 2, the second row partial
  };
  for (const auto& [kernel, p] : cases) {
    const SamplingPlan plan = plan_sampling(device, kernel, p, 128, main_grid(kernel, p), 1);
    ASSERT_NE(plan.slice.x, 0u) << p.m << "x" << p.n;
    const OperandRegion expected = enumerated_region(kernel, p, plan.slice);
    const OperandRegion region = slice_operand_region(kernel, p, plan.slice);
    EXPECT_EQ(region.rows, expected.rows) << p.m << "x" << p.n;
    EXPECT_EQ(region.columns, expected.columns) << p.m << "x" << p.n;
    EXPECT_LT(region.rows * region.columns, p.m * p.n) << p.m << "x" << p.n;
  }
  // By hand: the 4096^3 slice is 103 threadgroups in a block of round(sqrt(103)) = 10 columns
  // by 11 rows: 640 columns, 704 rows.
  const kernels::GemmProblem big{.m = 4096, .n = 4096, .k = 4096};
  const OperandRegion region = slice_operand_region(
      fused_64x64x32(), big,
      plan_sampling(device, fused_64x64x32(), big, 128, main_grid(fused_64x64x32(), big), 1).slice);
  EXPECT_EQ(region.rows, 704);
  EXPECT_EQ(region.columns, 640);
  // Not sliced, or striped: the whole problem.
  EXPECT_EQ(slice_operand_region(fused_64x64x32(), big, {}).rows, 4096);
  EXPECT_EQ(slice_operand_region(fused_64x64x32(), big, {}).columns, 4096);
  const kernels::GemmKernel striped =
      kernels::find_gemm_kernel("marlin_gemm_fp4_striped", analytic::Tile{64, 64, 32});
  const OperandRegion whole = slice_operand_region(striped, big, {.x = 1, .period = 40});
  EXPECT_EQ(whole.rows, 4096);
  EXPECT_EQ(whole.columns, 4096);
}

TEST(Sampling, SliceDeviceKeepsCachesAndScalesDram) {
  const model::DeviceSpec device = model::load_device("m4max");
  const model::DeviceSpec slice = slice_device(device, 2, 0.1, 0.25);
  EXPECT_EQ(slice.gpu.cores, 2);
  EXPECT_DOUBLE_EQ(slice.memory.l2_bytes_per_cycle, device.memory.l2_bytes_per_cycle * 0.1);
  EXPECT_DOUBLE_EQ(slice.memory.dram_bandwidth_bytes_per_s,
                   device.memory.dram_bandwidth_bytes_per_s * 0.25);
  EXPECT_EQ(slice.memory.l2.size_bytes, device.memory.l2.size_bytes);
  EXPECT_EQ(slice.memory.slc.size_bytes, device.memory.slc.size_bytes);
}

TEST(Sampling, SampleL2ScalesWithKInWholeSets) {
  // 3 MiB in sets of 16 lines of 128 bytes (2 KiB).
  const model::CacheSpec l2{.size_bytes = 3 << 20, .line_bytes = 128, .associativity = 16};
  // 128 of 4096: 3,145,728 / 32 = 98,304, 48 sets exactly; 1024 of 4096: a quarter.
  EXPECT_EQ(sample_l2_bytes(l2, 128, 4096), 98'304);
  EXPECT_EQ(sample_l2_bytes(l2, 1024, 4096), 786'432);
  // 129 of 4096: 99,072 bytes = 48.375 sets, rounded down to 48.
  EXPECT_EQ(sample_l2_bytes(l2, 129, 4096), 98'304);
  // 1 of 4096: 768 bytes, less than a set: one set.
  EXPECT_EQ(sample_l2_bytes(l2, 1, 4096), 2048);
  // The full K (or more): the whole capacity.
  EXPECT_EQ(sample_l2_bytes(l2, 4096, 4096), 3 << 20);
  EXPECT_EQ(sample_l2_bytes(l2, 8192, 4096), 3 << 20);
  // A fully associative cache rounds to lines: 99,072 bytes are 774 lines exactly.
  const model::CacheSpec full{.size_bytes = 3 << 20, .line_bytes = 128, .associativity = 0};
  EXPECT_EQ(sample_l2_bytes(full, 129, 4096), 774 * 128);
}

// Reuse distances of `zeros` reuses at distance 0 and `far` at distance `d` (sorted).
timing::ReuseDistances reuses(std::size_t zeros, std::size_t far, std::uint32_t d) {
  timing::ReuseDistances out;
  out.sorted.assign(zeros, 0);
  out.sorted.insert(out.sorted.end(), far, d);
  return out;
}

TEST(Sampling, L2OverflowExtrapolatesTheLongestReusesAlongK) {
  // 8 lines of 128 bytes, fully associative.
  const model::CacheSpec l2{.size_bytes = 1024, .line_bytes = 128, .associativity = 0};
  const std::array<std::int64_t, 2> ks{128, 256};
  // One reuse per 1 of K in both samples; the longest half at distance 2 at K = 128 and 3 at
  // 256: at K = 1024, 2 + (3 - 2) (1024 - 128) / 128 = 9 lines, beyond 8; the rest stay at 0.
  std::array<timing::ReuseDistances, 2> growing{reuses(64, 64, 2), reuses(128, 128, 3)};
  // 64 first accesses at K = 256: 0.25 per 1 of K, against 0.5 reuses per 1 of K beyond.
  growing[1].first_accesses = 64;
  const L2Overflow half = l2_overflow(l2, growing, ks, 1024);
  EXPECT_EQ(half.share, 0.5);
  EXPECT_EQ(half.added_misses, 2.0);
  // 9 lines reach a 9-line L2 (a reuse at distance d hits only with more than d lines)...
  const model::CacheSpec nine{.size_bytes = 9 * 128, .line_bytes = 128, .associativity = 0};
  EXPECT_EQ(l2_overflow(nine, growing, ks, 1024).share, 0.5);
  // ... and not a 10-line one.
  const model::CacheSpec ten{.size_bytes = 10 * 128, .line_bytes = 128, .associativity = 0};
  EXPECT_EQ(l2_overflow(ten, growing, ks, 1024).share, 0.0);
  EXPECT_EQ(l2_overflow(ten, growing, ks, 1024).added_misses, 0.0);
  // At K = 896 the longest reach 2 + 6 = 8 lines: the 8-line L2 is reached.
  EXPECT_EQ(l2_overflow(l2, growing, ks, 896).share, 0.5);
  // At K = 768, 7 lines: nothing reaches it.
  EXPECT_EQ(l2_overflow(l2, growing, ks, 768).share, 0.0);
  // Distances that do not grow with K stay within it however long K is.
  const std::array<timing::ReuseDistances, 2> steady{reuses(64, 64, 5), reuses(128, 128, 5)};
  EXPECT_EQ(l2_overflow(l2, steady, ks, 1 << 20).share, 0.0);
  // A quarter of the ranks beyond: ranks are compared per 1 of K (the sample at 256 has twice
  // the reuses of the one at 128, its longest quarter at the same ranks per K). With 512 first
  // accesses at K = 256 (2 per 1 of K): 0.25 x 1 / 2 added misses.
  std::array<timing::ReuseDistances, 2> quarter{reuses(96, 32, 2), reuses(192, 64, 3)};
  quarter[1].first_accesses = 512;
  EXPECT_EQ(l2_overflow(l2, quarter, ks, 1024).share, 0.25);
  EXPECT_EQ(l2_overflow(l2, quarter, ks, 1024).added_misses, 0.125);
  // No reuse, or K within the samples: nothing to extrapolate.
  const std::array<timing::ReuseDistances, 2> none{reuses(0, 0, 0), reuses(128, 128, 3)};
  EXPECT_EQ(l2_overflow(l2, none, ks, 1024).share, 0.0);
  EXPECT_EQ(l2_overflow(l2, growing, ks, 256).share, 0.0);
}

TEST(Sampling, DramSaturatesWhenTheBytesNeedMoreThanTheBandwidth) {
  const model::DeviceSpec device = model::load_device("m4max");  // 546 GB/s, 1.578 GHz
  // 1578 cycles are 1 us, in which 546 GB/s moves 546,000 bytes.
  EXPECT_FALSE(saturates_dram(545'999, timing::Cycles(1578), device));
  EXPECT_TRUE(saturates_dram(546'001, timing::Cycles(1578), device));
  EXPECT_FALSE(saturates_dram(546'001, timing::Cycles(1579), device));
}

TEST(Sampling, CompactSliceRenumbersThreadgroupsInOrder) {
  sim::LaunchTrace trace;
  trace.threadgroups_per_grid = {8, 8, 1};
  for (const auto& tg : {std::array<std::uint32_t, 3>{0, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}) {
    sim::SimdgroupTrace sg;
    sg.threadgroup = tg;
    trace.simdgroups.push_back(sg);
  }
  const sim::LaunchTrace out = compact_slice(trace);
  EXPECT_EQ(out.threadgroups_per_grid, (std::array<std::uint32_t, 3>{3, 1, 1}));
  EXPECT_EQ(out.simdgroups[0].threadgroup, (std::array<std::uint32_t, 3>{0, 0, 0}));
  EXPECT_EQ(out.simdgroups[1].threadgroup, (std::array<std::uint32_t, 3>{0, 0, 0}));
  EXPECT_EQ(out.simdgroups[2].threadgroup, (std::array<std::uint32_t, 3>{1, 0, 0}));
  EXPECT_EQ(out.simdgroups[3].threadgroup, (std::array<std::uint32_t, 3>{2, 0, 0}));
}

TEST(Sampling, DistinctLoadedBytesCountLinesOnce) {
  sim::LaunchTrace trace;
  sim::SimdgroupTrace sg;
  // Loads of buffer 0: bytes 0..3 and 124..131 (lines 0 and 1 of 128 B); the store to buffer
  // 1 and the threadgroup-memory load are not counted.
  sg.accesses = {{0, 0, 4, 0}, {124, 0, 8, 1}, {0, 1, 2, 2}, {0, sim::kThreadgroupBufferId, 4, 3}};
  sg.ops.push_back({.op = sim::OpClass::kDeviceLoad, .count = 2, .first_access = 0});
  sg.ops.push_back({.op = sim::OpClass::kDeviceStore, .count = 1, .first_access = 2});
  sg.ops.push_back({.op = sim::OpClass::kThreadgroupLoad,
                    .kind = static_cast<std::uint8_t>(sim::Space::kThreadgroup),
                    .count = 1,
                    .first_access = 3});
  trace.simdgroups = {sg, sg};  // the same lines again
  EXPECT_EQ(distinct_loaded_bytes(trace, 128), 2 * 128);
}

TEST(Sampling, ExtrapolatesAlongTheLine) {
  // Through (128, 1000) and (256, 1800): slope 6.25 per K; at 4096: 1000 + 6.25 * 3968.
  EXPECT_EQ(extrapolate(128, 1000, 256, 1800, 4096), 1000 + 24800);
  EXPECT_EQ(extrapolate(128, 1000, 128, 1000, 4096), 1000);  // one point: as is
  // 3 / 2 per K from 10: at 11, 100 + 1.5, rounded half away from zero.
  EXPECT_EQ(extrapolate(10, 100, 12, 103, 11), 102);
}

}  // namespace
}  // namespace marlin::cli
