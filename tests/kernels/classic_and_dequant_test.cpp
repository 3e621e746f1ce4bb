// The classic FP16 matmuls (naive, 16x16 and 32x32 tiled, with bias and activation
// epilogues) and the standalone dequantization kernels.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kernels/common/params.h"
#include "tests/kernels/gemm_test_support.h"

namespace marlin::kernels::testing {
namespace {

constexpr double kFp32AccumulationBound = 1e-3;

TEST(ClassicMatmul, EveryKernelAndEpilogueOnRaggedShapes) {
  const Activation activations[] = {Activation::kIdentity, Activation::kRelu, Activation::kGeluTanh,
                                    Activation::kSilu};
  for (const std::string family : {"matmul_f16", "matmul_tiled_f16", "matmul_tiled_32x32_f16"}) {
    const GemmKernel kernel = find_gemm_kernel(family, std::nullopt);
    for (const auto& [m, n, k] : {std::tuple{1, 33, 40}, std::tuple{45, 50, 70}}) {
      for (bool bias : {false, true}) {
        for (Activation act : activations) {
          if (!bias && act != Activation::kIdentity) continue;
          GemmProblem problem{m, n, k};
          problem.bias = bias;
          problem.activation = act;
          const GemmCheck check = check_gemm(kernel, problem, {WeightFormatKind::kFp16, 0});
          SCOPED_TRACE(fmt::format("{} M={} N={} K={} bias={} {}; {}", family, m, n, k, bias,
                                   activation_name(act), check.seed));
          EXPECT_EQ(check.unwritten, 0);
          EXPECT_LT(check.error, kFp32AccumulationBound);
        }
      }
    }
  }
}

// Runs a dequant kernel over packed weights and returns W [k][n] as half.
std::vector<Half> run_dequant(const std::string& name, const PackedWeights& w) {
  std::vector<std::uint32_t> codes = w.codes;
  std::vector<Half> scales = w.scales;
  std::vector<std::uint32_t> zeros =
      w.zero_points.empty() ? std::vector<std::uint32_t>{0} : w.zero_points;
  std::vector<Half> out(static_cast<std::size_t>(w.k * w.n));
  poison(out);
  DequantParams params{static_cast<unsigned>(w.k), static_cast<unsigned>(w.n),
                       static_cast<unsigned>(w.format.effective_group(w.k)),
                       w.format.has_zero_points() ? 1u : 0u};
  sim::LaunchSpec spec;
  spec.kernel = name;
  const std::uint32_t words = static_cast<std::uint32_t>(w.format.packed_rows(w.k));
  spec.threads_per_threadgroup = {16, 4, 1};
  spec.threadgroups = {static_cast<std::uint32_t>((w.n + 15) / 16), (words + 3) / 4, 1};
  spec.buffers = {{0, {codes.data(), codes.size() * 4}},
                  {1, {scales.data(), scales.size() * 2}},
                  {3, {out.data(), out.size() * 2}},
                  {4, {&params, sizeof(params)}}};
  if (name == "dequant_u4") spec.buffers[2] = {zeros.data(), zeros.size() * 4};
  spec.limits = apple_limits();
  sim::launch(spec);
  return out;
}

// Each value is the exact product code x scale rounded once to half, as the kernels compute it.
TEST(DequantKernels, MatchTheHostDequantizationRoundedToHalf) {
  RandomInputs random(fresh_seed());
  SCOPED_TRACE(seed_message(random.seed()));
  const std::int64_t k = 77;
  const std::int64_t n = 21;
  const std::vector<float> w = random.normal_float(k * n);
  const std::pair<const char*, WeightFormat> cases[] = {
      {"dequant_fp4", {WeightFormatKind::kFp4E2M1, 32}},
      {"dequant_u4", {WeightFormatKind::kU4B8, 16}},
      {"dequant_u4", {WeightFormatKind::kU4ZeroPoint, 64}},
      {"dequant_int8", {WeightFormatKind::kInt8, kPerColumnGroup}}};
  for (const auto& [name, format] : cases) {
    const PackedWeights packed = quantize_weights(w, k, n, format);
    const std::vector<float> expected = dequantize(packed);
    const std::vector<Half> got = run_dequant(name, packed);
    EXPECT_EQ(count_poisoned(got), 0) << name;
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(half_bits(got[i]), half_bits(to_half(expected[i])))
          << name << " " << format.name() << " element " << i;
    }
  }
}

}  // namespace
}  // namespace marlin::kernels::testing
