// Reference GEMM, activations and the relative Frobenius error.
#include "kernels/host/reference_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/host/packed_weights.h"
#include "kernels/host/quantize.h"
#include "kernels/host/test_inputs.h"
#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

std::vector<Half> halves(const std::vector<float>& values) {
  std::vector<Half> result;
  for (const float v : values) result.push_back(to_half(v));
  return result;
}

// A [2 x 3] = [[1, 2, 3], [-1, 0.5, 2]], W [3 x 2] = [[1, -1], [0.5, 2], [-2, 0.25]]:
//   C00 = 1*1 + 2*0.5 + 3*(-2)      = -4      C01 = 1*(-1) + 2*2 + 3*0.25      = 3.75
//   C10 = -1*1 + 0.5*0.5 + 2*(-2)   = -4.75   C11 = -1*(-1) + 0.5*2 + 2*0.25   = 2.5
const std::vector<float> kA = {1, 2, 3, -1, 0.5, 2};
const std::vector<float> kW = {1, -1, 0.5, 2, -2, 0.25};

TEST(ReferenceGemm, TinyCaseByHand) {
  const std::vector<double> c = reference_gemm(halves(kA), kW, 2, 2, 3);
  EXPECT_EQ(c, (std::vector<double>{-4.0, 3.75, -4.75, 2.5}));
}

TEST(ReferenceGemm, BiasThenRelu) {
  // bias [0.5, -1]: -3.5 2.75 -4.25 1.5; relu: 0 2.75 0 1.5
  const std::vector<Half> bias = halves({0.5f, -1.0f});
  EXPECT_EQ(reference_gemm(halves(kA), kW, 2, 2, 3, bias),
            (std::vector<double>{-3.5, 2.75, -4.25, 1.5}));
  EXPECT_EQ(reference_gemm(halves(kA), kW, 2, 2, 3, bias, Activation::kRelu),
            (std::vector<double>{0.0, 2.75, 0.0, 1.5}));
}

TEST(Activation, KnownValues) {
  // Reference values of 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))) and x / (1 + e^-x).
  EXPECT_NEAR(apply_activation(Activation::kGeluTanh, 1.0), 0.8411919906082768, 1e-12);
  EXPECT_NEAR(apply_activation(Activation::kGeluTanh, -1.0), -0.15880800939172324, 1e-12);
  EXPECT_NEAR(apply_activation(Activation::kGeluTanh, 2.0), 1.954597694087775, 1e-12);
  EXPECT_NEAR(apply_activation(Activation::kSilu, 1.0), 0.7310585786300049, 1e-12);
  EXPECT_NEAR(apply_activation(Activation::kSilu, -2.0), -0.2384058440442351, 1e-12);
  EXPECT_EQ(apply_activation(Activation::kRelu, -3.0), 0.0);
  EXPECT_EQ(apply_activation(Activation::kRelu, 3.0), 3.0);
  EXPECT_EQ(apply_activation(Activation::kIdentity, -3.0), -3.0);
  EXPECT_STREQ(activation_name(Activation::kGeluTanh), "gelu_tanh");
}

TEST(ReferenceGemm, RandomCaseAgainstNaiveFloatLoop) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  RandomInputs random(seed);
  const std::int64_t m = 5, n = 19, k = 70;
  const std::vector<Half> a = random.uniform_half(m * k);
  const std::vector<Half> bias = random.uniform_half(n);
  const std::vector<float> w =
      dequantize(pack_fp4_weights(random.normal_float(k * n, 0.1), k, n, 32));
  for (const Activation act : {Activation::kIdentity, Activation::kSilu}) {
    const std::vector<double> r = reference_gemm(a, w, m, n, k, bias, act);
    std::vector<float> naive(static_cast<std::size_t>(m * n));
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        float sum = 0.0f;
        for (std::int64_t p = 0; p < k; ++p) sum += static_cast<float>(a[i * k + p]) * w[p * n + j];
        sum += static_cast<float>(bias[j]);
        naive[i * n + j] = act == Activation::kSilu ? sum / (1.0f + std::exp(-sum)) : sum;
      }
    }
    EXPECT_LE(relative_frobenius_error(naive, r), 1e-5) << activation_name(act);
  }
}

TEST(ReferenceGemm, BadShapesThrow) {
  EXPECT_THROW(reference_gemm(halves(kA), kW, 2, 2, 2), InputError);  // A is 2 x 3
  EXPECT_THROW(reference_gemm(halves(kA), kW, 0, 2, 3), InputError);
  EXPECT_THROW(reference_gemm(halves(kA), kW, 2, 2, 3, halves({1.0f})), InputError);
}

TEST(RelativeFrobeniusError, KnownPerturbations) {
  // R = [3, 4], ||R|| = 5. C = [3, 4.5]: ||C - R|| = 0.5 -> 0.1.
  const std::vector<double> r = {3.0, 4.0};
  EXPECT_NEAR(relative_frobenius_error(std::vector<double>{3.0, 4.5}, r), 0.1, 1e-15);
  // C = 1.01 R -> 0.01 exactly in exact arithmetic.
  EXPECT_NEAR(relative_frobenius_error(std::vector<double>{3.03, 4.04}, r), 0.01, 1e-14);
  // FP16 and float outputs: [3, 4.5] is exact in both.
  EXPECT_NEAR(relative_frobenius_error(halves({3.0f, 4.5f}), r), 0.1, 1e-15);
  EXPECT_NEAR(relative_frobenius_error(std::vector<float>{3.0f, 4.5f}, r), 0.1, 1e-15);
  // R = [1, 0, 0, 0] and C = [1, 2, 2, 1]: ||C - R|| = sqrt(4 + 4 + 1) = 3 -> 3.
  EXPECT_NEAR(
      relative_frobenius_error(std::vector<double>{1, 2, 2, 1}, std::vector<double>{1, 0, 0, 0}),
      3.0, 1e-15);
}

TEST(RelativeFrobeniusError, NaNZeroReferenceAndSizeMismatch) {
  const std::vector<double> r = {3.0, 4.0};
  const double nan_error = relative_frobenius_error(
      std::vector<double>{3.0, std::numeric_limits<double>::quiet_NaN()}, r);
  EXPECT_TRUE(std::isnan(nan_error));
  EXPECT_FALSE(nan_error <= 1e-3);
  const std::vector<double> zeros = {0.0, 0.0};
  EXPECT_EQ(relative_frobenius_error(zeros, zeros), 0.0);
  EXPECT_EQ(relative_frobenius_error(r, zeros), std::numeric_limits<double>::infinity());
  EXPECT_THROW(relative_frobenius_error(std::vector<double>{1.0}, r), InputError);
}

}  // namespace
}  // namespace marlin::kernels
