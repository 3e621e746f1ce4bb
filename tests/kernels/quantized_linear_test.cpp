// The selection table and MarlinLinear / quantized_linear.
#include "kernels/launch/quantized_linear.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "model/common/input_error.h"
#include "tests/kernels/gemm_test_support.h"

namespace marlin::kernels::testing {
namespace {

TEST(SelectionTable, AnalysisDefaultThresholds) {
  const SelectionTable table = SelectionTable::analysis_default();
  EXPECT_EQ(table.select(1, WeightFormatKind::kFp4E2M1).metal_name,
            "marlin_gemm_fused_fp4_32x128x32");
  EXPECT_EQ(table.select(16, WeightFormatKind::kFp4E2M1).metal_name,
            "marlin_gemm_fused_fp4_32x128x32");
  EXPECT_EQ(table.select(17, WeightFormatKind::kFp4E2M1).metal_name,
            "marlin_gemm_fused_fp4_64x64x32");
  EXPECT_EQ(table.select(256, WeightFormatKind::kU4B8).metal_name,
            "marlin_gemm_fused_u4_128x64x16");
  EXPECT_EQ(table.select(257, WeightFormatKind::kU4ZeroPoint).metal_name,
            "marlin_gemm_fused_u4zp_128x128x16");
}

TEST(SelectionTable, PicksACompiledKernelThatFitsForEveryM) {
  const SelectionTable table = SelectionTable::analysis_default();
  model::LimitsSpec limits;  // 32 KiB per threadgroup, as every Apple GPU
  for (std::int64_t m : {1, 2, 7, 8, 15, 16, 17, 33, 64, 65, 100, 255, 256, 257, 600, 4096}) {
    for (WeightFormatKind format :
         {WeightFormatKind::kFp4E2M1, WeightFormatKind::kU4B8, WeightFormatKind::kU4ZeroPoint}) {
      const GemmKernel kernel = table.select(m, format);
      EXPECT_TRUE(kernel.compiled) << m;
      EXPECT_FALSE(as_built_budget(kernel, limits).refused) << kernel.metal_name;
      EXPECT_EQ(kernel.weights, format);
    }
  }
}

TEST(SelectionTable, JsonRoundTripAndFallbackForARefusedTile) {
  const nlohmann::json json = nlohmann::json::parse(R"({"rules": [
      {"max_m": 8, "variant": "striped", "tile": "64x64x32", "k_parallel": 4},
      {"max_m": 64, "variant": "separate", "tile": "64x64x64"},
      {"variant": "separate", "tile": "128x64x16"}]})");
  const SelectionTable table = SelectionTable::from_json(json);
  EXPECT_EQ(SelectionTable::from_json(table.to_json()).to_json(), table.to_json());
  EXPECT_EQ(table.select(4, WeightFormatKind::kFp4E2M1).metal_name,
            "marlin_gemm_fp4_striped_64x64x32");
  EXPECT_EQ(table.rule_for(4).k_parallel, 4);
  // The double-buffered 64x64x64 is refused; the fused kernel of that tile runs instead.
  EXPECT_EQ(table.select(20, WeightFormatKind::kFp4E2M1).metal_name,
            "marlin_gemm_fused_fp4_64x64x64");
  EXPECT_EQ(table.select(1000, WeightFormatKind::kFp4E2M1).metal_name, "marlin_gemm_fp4_128x64x16");
  // u4 has only the fused kernels.
  EXPECT_EQ(table.select(4, WeightFormatKind::kU4B8).metal_name, "marlin_gemm_fused_u4_64x64x32");
}

TEST(SelectionTable, MalformedTablesAreRejectedWithTheRule) {
  const char* bad[] = {R"({"rules": [{"variant": "tiled", "tile": "64x64x32"}]})",
                       R"({"rules": [{"variant": "fused", "tile": "16x16x16"}]})",
                       R"({"rules": [{"max_m": 64, "variant": "fused", "tile": "64x64x32"},
                    {"max_m": 16, "variant": "fused", "tile": "64x64x32"},
                    {"variant": "fused", "tile": "64x64x32"}]})",
                       R"({"rules": [{"max_m": 64, "variant": "fused", "tile": "64x64x32"}]})",
                       R"({"rules": [{"variant": "fused", "tile": "64x64x32", "speed": 3}]})",
                       R"({"rules": [{"variant": "fused", "tile": "64x64x32", "k_parallel": 2}]})",
                       R"({"rules": [{"variant": "fused"}]})",
                       R"({"table": []})"};
  for (const char* text : bad) {
    EXPECT_THROW(SelectionTable::from_json(nlohmann::json::parse(text)), InputError) << text;
  }
}

TEST(ClassicMatmulChoice, BySmallerSideOfTheOutput) {
  EXPECT_EQ(classic_matmul_for(1, 4096).family_name, "matmul_f16");
  EXPECT_EQ(classic_matmul_for(15, 15).family_name, "matmul_f16");
  EXPECT_EQ(classic_matmul_for(16, 4096).family_name, "matmul_tiled_f16");
  EXPECT_EQ(classic_matmul_for(4096, 63).family_name, "matmul_tiled_f16");
  EXPECT_EQ(classic_matmul_for(64, 64).family_name, "matmul_tiled_32x32_f16");
  EXPECT_THROW(classic_matmul_for(0, 8), InputError);
}

TEST(MarlinLinear, ForwardMatchesTheReferenceAcrossBatchSizes) {
  RandomInputs random(fresh_seed());
  SCOPED_TRACE(seed_message(random.seed()));
  const std::int64_t k = 96;
  const std::int64_t n = 80;
  for (WeightFormatKind format : {WeightFormatKind::kFp4E2M1, WeightFormatKind::kU4B8}) {
    const PackedWeights w = quantize_weights(random.normal_float(k * n), k, n, {format, 32});
    const MarlinLinear layer(w);
    for (std::int64_t m : {1, 17, 70}) {
      const std::vector<Half> x = random.uniform_half(m * k);
      const std::vector<Half> y = layer.forward(x, m, apple_limits());
      const std::vector<double> reference = reference_gemm(x, dequantize(w), m, n, k);
      EXPECT_EQ(count_poisoned(y), 0);
      EXPECT_LT(relative_frobenius_error(y, reference), 1e-3)
          << weight_format_kind_name(format) << " M=" << m;
    }
  }
  const std::vector<Half> x = random.uniform_half(3 * k);
  const PackedWeights w =
      quantize_weights(random.normal_float(k * n), k, n, {WeightFormatKind::kFp4E2M1, 32});
  EXPECT_EQ(quantized_linear(x, 3, w, apple_limits()).size(), static_cast<std::size_t>(3 * n));
}

TEST(MarlinLinear, WeightsNoGemmKernelTakesAreRejected) {
  RandomInputs random(fresh_seed());
  const PackedWeights w =
      quantize_weights(random.normal_float(16 * 8), 16, 8, {WeightFormatKind::kInt8, 8});
  EXPECT_THROW(MarlinLinear{w}, InputError);
}

}  // namespace
}  // namespace marlin::kernels::testing
