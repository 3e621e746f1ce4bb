// Seeds, random inputs and poisoned buffers.
#include "kernels/host/test_inputs.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kernels/host/reference_gemm.h"
#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

TEST(RandomInputs, SameSeedSameValuesAndRangesHold) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  RandomInputs first(seed);
  RandomInputs second(seed);
  const std::vector<Half> a = first.uniform_half(1000, -2.0, 3.0);
  const std::vector<Half> b = second.uniform_half(1000, -2.0, 3.0);
  ASSERT_EQ(a.size(), 1000u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(half_bits(a[i]), half_bits(b[i])) << i;
    EXPECT_GE(static_cast<float>(a[i]), -2.0f);
    EXPECT_LE(static_cast<float>(a[i]), 3.0f);  // rounding to FP16 may reach the bound
  }
  const std::vector<std::uint8_t> codes = first.codes(1000, 16);
  int distinct = 0;
  std::vector<bool> seen(16, false);
  for (const std::uint8_t c : codes) {
    ASSERT_LT(c, 16);
    if (!seen[c]) ++distinct;
    seen[c] = true;
  }
  EXPECT_EQ(distinct, 16);  // 1000 draws of 16 codes: missing one has probability < 1e-26
}

// The draws are those of the standard distributions over std::mt19937_64 (the reference): one
// engine feeds uniform halves, uniform floats and normal floats in turn, as ProblemOperands
// draws A and then the weights, so the engine's state after each call matches too.
TEST(RandomInputs, DrawsWhatTheStandardDistributionsDraw) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  RandomInputs inputs(seed);
  std::mt19937_64 reference(seed);
  for (int round = 0; round < 3; ++round) {
    const std::vector<Half> a = inputs.uniform_half(4001, -1.0, 1.0);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(half_bits(a[i]), half_bits(to_half(unit(reference)))) << i;
    }
    const std::vector<float> f = inputs.uniform_float(999, 0.5, 4.0);
    std::uniform_real_distribution<double> wide(0.5, 4.0);
    for (std::size_t i = 0; i < f.size(); ++i) {
      ASSERT_EQ(f[i], static_cast<float>(wide(reference))) << i;
    }
    // An odd count leaves the second value of the last pair unused, in both.
    const std::vector<float> w = inputs.normal_float(3001, 0.5);
    std::normal_distribution<double> normal(0.0, 0.5);
    for (std::size_t i = 0; i < w.size(); ++i) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(w[i]),
                std::bit_cast<std::uint32_t>(static_cast<float>(normal(reference))))
          << i;
    }
  }
}

// Normal draws of several blocks (their logarithms on a helper thread) are the standard
// distribution's values, in order.
TEST(RandomInputs, LargeNormalDrawsAreTheStandardDistributions) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  RandomInputs inputs(seed);
  std::mt19937_64 reference(seed);
  const std::vector<float> w = inputs.normal_float(1'572'865, 2.0);  // 3 x 2^18 pairs, odd
  std::normal_distribution<double> normal(0.0, 2.0);
  for (std::size_t i = 0; i < w.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(w[i]),
              std::bit_cast<std::uint32_t>(static_cast<float>(normal(reference))))
        << i;
  }
  // The next draw starts where the standard distribution's engine stands.
  const std::vector<Half> next = inputs.uniform_half(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (const Half h : next) EXPECT_EQ(half_bits(h), half_bits(to_half(unit(reference))));
}

// Draws into spans of even sizes continue one another: with a last, odd one they are the
// values of one standard distribution, in order.
TEST(RandomInputs, NormalDrawsIntoSpansContinueOneAnother) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  RandomInputs inputs(seed);
  std::mt19937_64 reference(seed);
  std::normal_distribution<double> normal(0.0, 0.5);
  // 600,000 values are two blocks of pairs (the second partial); then a short and an odd draw.
  for (const std::size_t size : {std::size_t{600'000}, std::size_t{1'000}, std::size_t{7}}) {
    std::vector<float> w(size, -99.0f);
    inputs.normal_float(w, 0.5);
    for (std::size_t i = 0; i < w.size(); ++i) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(w[i]),
                std::bit_cast<std::uint32_t>(static_cast<float>(normal(reference))))
          << size << ": " << i;
    }
  }
}

TEST(RandomInputs, InputsAreNotAllZero) {
  RandomInputs random(fresh_seed());
  const std::vector<Half> a = random.uniform_half(64);
  double sum_sq = 0.0;
  for (const Half v : a) sum_sq += static_cast<double>(v) * static_cast<double>(v);
  EXPECT_GT(sum_sq, 0.0);
}

TEST(Seeds, EnvironmentOverrideReproducesARun) {
  // Keep any seed the run was started with, and put it back afterwards.
  const char* original = std::getenv(kSeedEnvironmentVariable);
  const std::string saved = original == nullptr ? "" : original;
  ASSERT_EQ(setenv(kSeedEnvironmentVariable, "12345", 1), 0);
  EXPECT_EQ(fresh_seed(), 12345u);
  EXPECT_EQ(seed_message(12345), "seed 12345 (rerun with MARLIN_TEST_SEED=12345)");
  ASSERT_EQ(setenv(kSeedEnvironmentVariable, "12x", 1), 0);
  EXPECT_THROW(fresh_seed(), InputError);
  if (original == nullptr) {
    ASSERT_EQ(unsetenv(kSeedEnvironmentVariable), 0);
  } else {
    ASSERT_EQ(setenv(kSeedEnvironmentVariable, saved.c_str(), 1), 0);
  }
}

TEST(Poison, UnwrittenElementsAreNaNAndFailTheErrorCheck) {
  std::vector<Half> out(6);
  poison(out);
  EXPECT_EQ(count_poisoned(out), 6);
  EXPECT_TRUE(std::isnan(static_cast<float>(out[0])));
  EXPECT_EQ(half_bits(out[5]), 0x7E5A);
  const std::vector<double> reference = {1, 2, 3, 4, 5, 6};
  for (std::size_t i = 0; i < 5; ++i) out[i] = to_half(reference[i]);  // element 5 unwritten
  EXPECT_EQ(count_poisoned(out), 1);
  EXPECT_FALSE(relative_frobenius_error(out, reference) <= 1e-3);
  out[5] = to_half(6.0);
  EXPECT_EQ(relative_frobenius_error(out, reference), 0.0);

  std::vector<float> out_float(3);
  poison(out_float);
  EXPECT_EQ(count_poisoned(out_float), 3);
  EXPECT_TRUE(std::isnan(out_float[1]));
  out_float[1] = 0.0f;
  EXPECT_EQ(count_poisoned(out_float), 2);
}

}  // namespace
}  // namespace marlin::kernels
