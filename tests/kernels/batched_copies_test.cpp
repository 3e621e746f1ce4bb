// Copies in batches (sim/runtime/batch_run.h) on the kernel programs: a full run whose alike
// threadgroups run as copies writes the same output, bit for bit, and builds the same traces
// whether its copies run one by one or kBatchWidth at a time through the kernel's batched
// build, for every kernel family that has one. The copies one by one are the engine's plain
// build, itself checked against the double-precision reference (marlin_kernels_test.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/host/fp16.h"
#include "kernels/launch/gemm_runner.h"
#include "kernels/launch/kernel_catalog.h"
#include "kernels/launch/problem_operands.h"
#include "sim/runtime/batch_lane.h"
#include "tests/kernels/gemm_test_support.h"

namespace marlin::kernels {
namespace {

struct BatchCase {
  std::string family;
  std::string tile;  // empty for the classic matmuls
  GemmProblem problem;
  WeightFormat format;
};

void PrintTo(const BatchCase& c, std::ostream* os) {
  *os << c.family << " " << c.tile << " " << c.problem.m << "x" << c.problem.n << "x"
      << c.problem.k;
}

// The alike block of a tiled grid: every tile but a ragged last column and row.
sim::AlikeThreadgroups alike_block(const GemmKernel& kernel, const GemmProblem& p, bool batch) {
  const auto alike = [](std::int64_t extent, int tile) {
    const auto tiles = static_cast<std::uint32_t>((extent + tile - 1) / tile);
    return tiles > 1 && extent % tile != 0 ? tiles - 1 : tiles;
  };
  sim::AlikeThreadgroups a{alike(p.n, kernel.tile.tn), alike(p.m, kernel.tile.tm), true};
  a.batch = batch;
  return a;
}

GemmRun run(const BatchCase& c, const ProblemOperands& in, bool batch, unsigned host_threads) {
  const GemmKernel kernel =
      find_gemm_kernel(c.family, c.tile.empty() ? std::nullopt : find_marlin_tile(c.tile));
  sim::LaunchOptions options;
  options.host_threads = host_threads;
  options.alike = alike_block(kernel, c.problem, batch);
  return run_gemm(kernel, c.problem, in.operands, testing::apple_limits(), options);
}

class BatchedCopies : public ::testing::TestWithParam<BatchCase> {};

TEST_P(BatchedCopies, WriteAndTraceWhatCopiesOneByOneDo) {
  const BatchCase& c = GetParam();
  const ProblemOperands in(c.problem, c.format, 11);
  const GemmRun alone = run(c, in, false, 1);
  const sim::LaunchResult& plain = alone.dispatches.back().result;
  ASSERT_GT(plain.stats.threadgroups_translated, 0u) << "the case has no copies";
  EXPECT_EQ(plain.stats.threadgroups_batched, 0u);
  for (const unsigned threads : {1u, 2u}) {
    const GemmRun batched = run(c, in, true, threads);
    const sim::LaunchResult& b = batched.dispatches.back().result;
    EXPECT_EQ(b.stats.threadgroups_batched, plain.stats.threadgroups_translated) << threads;
    EXPECT_EQ(b.stats.batches_stopped, 0u);
    ASSERT_EQ(batched.c.size(), alone.c.size());
    for (std::size_t i = 0; i < alone.c.size(); ++i) {
      ASSERT_EQ(half_bits(batched.c[i]), half_bits(alone.c[i]))
          << "output " << i << ", " << threads;
    }
    EXPECT_EQ(b.trace.simdgroups, plain.trace.simdgroups);
    EXPECT_EQ(b.stats.alu_lane_ops, plain.stats.alu_lane_ops);
    EXPECT_EQ(b.stats.threadgroups, plain.stats.threadgroups);
    EXPECT_EQ(b.stats.threadgroups_as_plain_loop, plain.stats.threadgroups_as_plain_loop);
  }
}

WeightFormat fp4() { return {WeightFormatKind::kFp4E2M1, 128}; }

// Grids with 2 to 40 copies: full batches, a short last one, ragged edges left out of the
// alike block, every Marlin format and the classic epilogues.
INSTANTIATE_TEST_SUITE_P(
    KernelFamilies, BatchedCopies,
    ::testing::Values(
        BatchCase{"marlin_gemm_fused_fp4", "64x64x32", {.m = 64, .n = 1536, .k = 256}, fp4()},
        BatchCase{"marlin_gemm_fused_fp4", "32x128x32", {.m = 70, .n = 1100, .k = 256}, fp4()},
        BatchCase{"marlin_gemm_fused_u4",
                  "64x64x32",
                  {.m = 128, .n = 640, .k = 128},
                  {WeightFormatKind::kU4B8, 64}},
        BatchCase{"marlin_gemm_fused_u4zp",
                  "128x64x16",
                  {.m = 256, .n = 512, .k = 128},
                  {WeightFormatKind::kU4ZeroPoint, 128}},
        BatchCase{"marlin_gemm_fp4", "64x64x32", {.m = 128, .n = 1024, .k = 192}, fp4()},
        BatchCase{"matmul_tiled_f16",
                  "",
                  {.m = 100, .n = 90, .k = 40, .activation = Activation::kGeluTanh, .bias = true},
                  {WeightFormatKind::kFp16}},
        BatchCase{"matmul_tiled_32x32_f16",
                  "",
                  {.m = 96, .n = 100, .k = 72, .activation = Activation::kSilu, .bias = true},
                  {WeightFormatKind::kFp16}},
        BatchCase{"matmul_f16",
                  "",
                  {.m = 40, .n = 300, .k = 24, .activation = Activation::kRelu, .bias = true},
                  {WeightFormatKind::kFp16}}));

}  // namespace
}  // namespace marlin::kernels
