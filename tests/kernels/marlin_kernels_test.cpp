// Every Marlin kernel x tile configuration x a set of shapes (M = 1 decode, ragged M, N and K,
// several group sizes) against the double-precision reference on the same quantized weights.
// The kernels accumulate in FP32: the relative Frobenius error bound is 1e-3.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "model/common/input_error.h"
#include "tests/kernels/gemm_test_support.h"

namespace marlin::kernels::testing {
namespace {

constexpr double kFp32AccumulationBound = 1e-3;

struct Shape {
  std::int64_t m, n, k;
  int group;  // kPerColumnGroup for per-column scales
};

// M = 1 decode; ragged in every dimension; aligned; per-column scales; K below one tile.
const Shape kShapes[] = {{1, 72, 96, 32},
                         {37, 136, 200, 64},
                         {64, 128, 256, 128},
                         {20, 40, 72, kPerColumnGroup},
                         {9, 8, 8, 8}};

WeightFormatKind format_of(GemmFamily family) {
  switch (family) {
    case GemmFamily::kMarlinFusedU4:
      return WeightFormatKind::kU4B8;
    case GemmFamily::kMarlinFusedU4Zp:
      return WeightFormatKind::kU4ZeroPoint;
    default:
      return WeightFormatKind::kFp4E2M1;
  }
}

struct Case {
  std::string family;
  analytic::Tile tile;
};

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const std::string family :
       {"marlin_gemm_fp4", "marlin_gemm_fused_fp4", "marlin_gemm_fused_u4",
        "marlin_gemm_fused_u4zp", "marlin_gemm_fp4_striped"}) {
    for (const analytic::Tile& tile : marlin_tiles()) {
      if (find_gemm_kernel(family, tile).compiled) cases.push_back({family, tile});
    }
  }
  return cases;
}

class MarlinKernel : public ::testing::TestWithParam<Case> {};

TEST_P(MarlinKernel, MatchesTheReferenceOnEveryShape) {
  const GemmKernel kernel = find_gemm_kernel(GetParam().family, GetParam().tile);
  for (const Shape& shape : kShapes) {
    GemmProblem problem{shape.m, shape.n, shape.k};
    const WeightFormat format{format_of(kernel.family), shape.group};
    const GemmCheck check = check_gemm(kernel, problem, format);
    SCOPED_TRACE(fmt::format("M={} N={} K={} group={}; {}", shape.m, shape.n, shape.k, shape.group,
                             check.seed));
    EXPECT_EQ(check.dispatches, gemm_dispatch_count(kernel, problem));
    EXPECT_EQ(check.unwritten, 0);
    EXPECT_LT(check.error, kFp32AccumulationBound);
  }
}

INSTANTIATE_TEST_SUITE_P(AllTiles, MarlinKernel, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return param.param.family + "_" + analytic::tile_name(param.param.tile);
                         });

// K-parallel factors 1 to 8 and uneven stripes (a grid size that divides nothing).
TEST(StripedKernel, KParallelOneToEight) {
  const GemmKernel kernel =
      find_gemm_kernel("marlin_gemm_fp4_striped", analytic::Tile{32, 128, 32});
  for (int p = 1; p <= 8; ++p) {
    GemmProblem problem{5, 200, 300};
    problem.k_parallel = p;
    problem.num_threadgroups = 3;
    const GemmCheck check = check_gemm(kernel, problem, {WeightFormatKind::kFp4E2M1, 32});
    SCOPED_TRACE(fmt::format("k_parallel={}; {}", p, check.seed));
    EXPECT_EQ(check.dispatches, p > 1 ? 3 : 1);  // zero and reduce around the GEMM
    EXPECT_EQ(check.dispatches, gemm_dispatch_count(kernel, problem));
    EXPECT_EQ(check.unwritten, 0);
    EXPECT_LT(check.error, kFp32AccumulationBound);
  }
}

// More K slices than K tiles: the empty slices must contribute zeros (the zero dispatch).
TEST(StripedKernel, MoreSlicesThanKTiles) {
  const GemmKernel kernel = find_gemm_kernel("marlin_gemm_fp4_striped", analytic::Tile{64, 64, 64});
  GemmProblem problem{3, 64, 64};
  problem.k_parallel = 4;
  const GemmCheck check = check_gemm(kernel, problem, {WeightFormatKind::kFp4E2M1, 64});
  SCOPED_TRACE(check.seed);
  EXPECT_LT(check.error, kFp32AccumulationBound);
}

TEST(MarlinKernels, SeparateDoubleBuffered64x64x64IsRefused) {
  const GemmKernel kernel = find_gemm_kernel("marlin_gemm_fp4", analytic::Tile{64, 64, 64});
  EXPECT_FALSE(kernel.compiled);
  // 2 x 64 x (64 + 8) halves of A and 2 x 64 x (64 + 8) halves of B, 2 bytes each.
  EXPECT_EQ(kernel.threadgroup_bytes, 2 * 64 * 72 * 2 + 2 * 64 * 72 * 2);
  EXPECT_THROW(check_gemm(kernel, {8, 8, 8}, {WeightFormatKind::kFp4E2M1, 8}), InputError);
}

// The catalog's budget formula and the kernels' own declarations agree, byte for byte.
TEST(MarlinKernels, CatalogBudgetEqualsTheDeclarations) {
  for (const Case& c : all_cases()) {
    const GemmKernel kernel = find_gemm_kernel(c.family, c.tile);
    EXPECT_EQ(static_cast<std::uint64_t>(kernel.threadgroup_bytes),
              sim::threadgroup_memory_bytes(kernel.metal_name, {}))
        << kernel.metal_name;
  }
}

// Random activations and FP4 weights (groups of 32) of a problem.
struct Fp4Operands {
  std::vector<Half> a;
  PackedWeights w;
  explicit Fp4Operands(const GemmProblem& p) {
    RandomInputs random(fresh_seed());
    a = random.uniform_half(p.m * p.k);
    w = quantize_weights(random.normal_float(p.k * p.n), p.k, p.n,
                         {WeightFormatKind::kFp4E2M1, 32});
  }
  GemmOperands operands() const {
    GemmOperands out;
    out.a = a;
    out.weights = &w;
    return out;
  }
};

// A sliced launch leaves C zero outside its threadgroups' tiles (no poison: most of C is
// unwritten by design) and computes its tiles as the whole launch does.
TEST(MarlinKernels, SlicedLaunchWritesItsTilesIntoAZeroOutput) {
  const GemmKernel kernel = find_gemm_kernel("marlin_gemm_fused_fp4", analytic::Tile{64, 64, 32});
  const GemmProblem problem{192, 256, 64};  // 4 x 3 tiles
  const Fp4Operands drawn(problem);
  const GemmOperands operands = drawn.operands();
  const GemmRun whole = run_gemm(kernel, problem, operands, apple_limits(), {});
  sim::LaunchOptions sliced;
  sliced.slice = {.x = 2, .y = 2, .count = 3};  // tiles (0, 0), (1, 0), (0, 1)
  const GemmRun part = run_gemm(kernel, problem, operands, apple_limits(), sliced);
  ASSERT_EQ(part.c.size(), whole.c.size());
  EXPECT_EQ(count_poisoned(part.c), 0);
  for (std::size_t i = 0; i < part.c.size(); ++i) {
    const std::size_t row_tile = i / 256 / 64;
    const std::size_t column_tile = i % 256 / 64;
    const bool in_slice = row_tile < 2 && column_tile < 2 && column_tile + 2 * row_tile < 3;
    ASSERT_EQ(half_bits(part.c[i]), in_slice ? half_bits(whole.c[i]) : half_bits(Half{0})) << i;
  }
}

TEST(MarlinKernels, ResultsIdenticalAtOneAndTwoHostThreads) {
  const GemmKernel kernel = find_gemm_kernel("marlin_gemm_fused_fp4", analytic::Tile{64, 64, 32});
  const Fp4Operands drawn({70, 130, 96});
  const GemmOperands operands = drawn.operands();
  sim::LaunchOptions one;
  sim::LaunchOptions two;
  two.host_threads = 2;
  const GemmRun r1 = run_gemm(kernel, {70, 130, 96}, operands, apple_limits(), one);
  const GemmRun r2 = run_gemm(kernel, {70, 130, 96}, operands, apple_limits(), two);
  ASSERT_EQ(r1.c.size(), r2.c.size());
  for (std::size_t i = 0; i < r1.c.size(); ++i) {
    ASSERT_EQ(half_bits(r1.c[i]), half_bits(r2.c[i])) << i;
  }
  EXPECT_EQ(r1.dispatches[0].result.trace, r2.dispatches[0].result.trace);
}

TEST(MarlinKernels, WrongWeightFormatIsRejected) {
  const GemmKernel kernel = find_gemm_kernel("marlin_gemm_fused_u4", analytic::Tile{64, 64, 32});
  EXPECT_THROW(check_gemm(kernel, {4, 16, 16}, {WeightFormatKind::kFp4E2M1, 16}), InputError);
}

TEST(MarlinKernels, UnknownKernelsAndTilesAreNamed) {
  try {
    find_gemm_kernel("marlin_gemm_fp8", analytic::Tile{64, 64, 32});
    FAIL();
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("marlin_gemm_fp8"), std::string::npos);
  }
  try {
    find_gemm_kernel("marlin_gemm_fused_fp4", analytic::Tile{16, 16, 16});
    FAIL();
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("16x16x16"), std::string::npos);
  }
}

}  // namespace
}  // namespace marlin::kernels::testing
