// Host FP16: bit patterns, rounding, and the round-up used for quantization scales.
#include "kernels/host/fp16.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

TEST(Fp16, BitPatternsAndNearestEvenRounding) {
  EXPECT_EQ(half_bits(to_half(1.0)), 0x3C00);
  EXPECT_EQ(half_bits(to_half(-2.0)), 0xC000);
  EXPECT_EQ(half_bits(to_half(65504.0)), 0x7BFF);
  // 1 + 2^-11 is halfway between 1 (mantissa 0, even) and 1 + 2^-10 (mantissa 1): -> 1.
  EXPECT_EQ(half_bits(to_half(1.0 + 1.0 / 2048.0)), 0x3C00);
  // 1 + 3 * 2^-11 is halfway between mantissa 1 and 2 (even): -> 1 + 2^-9, mantissa 2.
  EXPECT_EQ(half_bits(to_half(1.0 + 3.0 / 2048.0)), 0x3C02);
  EXPECT_EQ(static_cast<double>(half_from_bits(0x0001)), kHalfMinSubnormal);  // 2^-24
}

TEST(Fp16, HalfAtLeastRoundsUp) {
  EXPECT_EQ(half_bits(half_at_least(0.0, "t")), 0x0000);
  EXPECT_EQ(half_bits(half_at_least(0.5, "t")), 0x3800);  // exact values stay
  // 1 + 2^-12 is nearer to 1, but the smallest FP16 >= it is 1 + 2^-10 (mantissa 1).
  EXPECT_EQ(half_bits(half_at_least(1.0 + 1.0 / 4096.0, "t")), 0x3C01);
  EXPECT_EQ(half_bits(half_at_least(1e-9, "t")), 0x0001);  // below 2^-24 -> smallest subnormal
  EXPECT_EQ(half_bits(half_at_least(65504.0, "t")), 0x7BFF);
  // 65503.9 rounds to 65504 (nearest), which is already >= the value.
  EXPECT_EQ(half_bits(half_at_least(65503.9, "t")), 0x7BFF);
}

TEST(Fp16, HalfAtLeastRejectsValuesOutsideTheRange) {
  EXPECT_THROW(half_at_least(65504.5, "scale"), InputError);
  EXPECT_THROW(half_at_least(-1.0, "scale"), InputError);
  EXPECT_THROW(half_at_least(std::numeric_limits<double>::quiet_NaN(), "scale"), InputError);
  EXPECT_THROW(half_at_least(std::numeric_limits<double>::infinity(), "scale"), InputError);
}

TEST(Fp16, BufferConversions) {
  const std::vector<float> values = {0.1f, -3.0f, 70000.0f};
  const std::vector<Half> halves = to_half_vector(values);
  ASSERT_EQ(halves.size(), 3u);
  EXPECT_EQ(half_bits(halves[0]), 0x2E66);  // 0.1 -> 0.0999755859375
  EXPECT_EQ(half_bits(halves[1]), 0xC200);
  EXPECT_EQ(half_bits(halves[2]), 0x7C00);  // beyond 65520 -> +inf
  const std::vector<float> back = to_float_vector(halves);
  EXPECT_EQ(back[0], 0.0999755859375f);
  EXPECT_EQ(back[1], -3.0f);
}

}  // namespace
}  // namespace marlin::kernels
