// MersenneTwister64 draws std::mt19937_64's sequence.
#include "kernels/host/mersenne_twister_64.h"

#include <gtest/gtest.h>

#include <random>

#include "kernels/host/test_inputs.h"

namespace marlin::kernels {
namespace {

// The C++ standard's check of mt19937_64 ([rand.predef]): from the default seed, 5489, the
// 10000th draw is 9981545732273789042.
TEST(MersenneTwister64, TenThousandthDrawFromTheDefaultSeedIsTheStandardsValue) {
  MersenneTwister64 engine(5489);
  for (int i = 1; i < 10000; ++i) engine();
  EXPECT_EQ(engine(), 9981545732273789042ULL);
}

// Several blocks of 312 words, so that every stretch of the regeneration is compared.
TEST(MersenneTwister64, DrawsWhatStdMt19937_64Draws) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  MersenneTwister64 engine(seed);
  std::mt19937_64 reference(seed);
  for (int i = 0; i < 4 * 312 + 7; ++i) ASSERT_EQ(engine(), reference()) << i;
}

TEST(MersenneTwister64, StandardDistributionsDrawTheSameValuesFromIt) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  MersenneTwister64 engine(seed);
  std::mt19937_64 reference(seed);
  std::uniform_int_distribution<int> codes(0, 14);
  std::uniform_int_distribution<int> reference_codes(0, 14);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(codes(engine), reference_codes(reference)) << i;
}

}  // namespace
}  // namespace marlin::kernels
