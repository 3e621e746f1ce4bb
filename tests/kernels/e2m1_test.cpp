// FP4 E2M1: decode of all 16 codes, encode with its tie rules, FP16 bit patterns.
#include "kernels/host/e2m1.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>

#include "kernels/host/fp16.h"

namespace marlin::kernels {
namespace {

// Magnitudes of codes 0..7 from the fields [E1 E0 | M], bias 1, by hand:
//   0000 E=0 M=0 -> 0            0001 E=0 M=1 -> 0.5 (subnormal, M * 0.5)
//   0010 E=1 M=0 -> 2^0 * 1   = 1    0011 E=1 M=1 -> 2^0 * 1.5 = 1.5
//   0100 E=2 M=0 -> 2^1 * 1   = 2    0101 E=2 M=1 -> 2^1 * 1.5 = 3
//   0110 E=3 M=0 -> 2^2 * 1   = 4    0111 E=3 M=1 -> 2^2 * 1.5 = 6
constexpr std::array<float, 8> kMagnitudes = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

TEST(E2M1Decode, AllSixteenCodes) {
  for (int code = 0; code < 8; ++code) {
    EXPECT_EQ(decode_e2m1(static_cast<std::uint8_t>(code)), kMagnitudes[code]) << code;
    EXPECT_EQ(decode_e2m1(static_cast<std::uint8_t>(code | 8)), -kMagnitudes[code]) << code;
  }
  EXPECT_FALSE(std::signbit(decode_e2m1(0)));
  EXPECT_TRUE(std::signbit(decode_e2m1(8)));  // code 1000 is -0
}

TEST(E2M1Decode, IgnoresBitsAboveTheNibble) {
  EXPECT_EQ(decode_e2m1(0xF7), 6.0f);
  EXPECT_EQ(decode_e2m1(0x1D), -3.0f);  // low nibble 1101: S=1 E=2 M=1
}

TEST(E2M1Encode, ExactValuesGiveTheirCodes) {
  for (int code = 0; code < 8; ++code) {
    EXPECT_EQ(encode_e2m1(kMagnitudes[code]), code) << kMagnitudes[code];
    EXPECT_EQ(encode_e2m1(-static_cast<double>(kMagnitudes[code])), code | 8) << code;
  }
}

TEST(E2M1Encode, TiesGoToTheEvenMantissa) {
  // Midpoint -> (lower, upper) codes -> the one with mantissa bit 0 wins.
  EXPECT_EQ(encode_e2m1(0.25), 0b0000);  // 0 (0000) vs 0.5 (0001) -> 0
  EXPECT_EQ(encode_e2m1(0.75), 0b0010);  // 0.5 (0001) vs 1 (0010) -> 1
  EXPECT_EQ(encode_e2m1(1.25), 0b0010);  // 1 (0010) vs 1.5 (0011) -> 1
  EXPECT_EQ(encode_e2m1(1.75), 0b0100);  // 1.5 (0011) vs 2 (0100) -> 2
  EXPECT_EQ(encode_e2m1(2.5), 0b0100);   // 2 (0100) vs 3 (0101) -> 2
  EXPECT_EQ(encode_e2m1(3.5), 0b0110);   // 3 (0101) vs 4 (0110) -> 4
  EXPECT_EQ(encode_e2m1(5.0), 0b0110);   // 4 (0110) vs 6 (0111) -> 4
  // The same ties, negative: sign bit set, same magnitude choice.
  EXPECT_EQ(encode_e2m1(-0.25), 0b1000);
  EXPECT_EQ(encode_e2m1(-0.75), 0b1010);
  EXPECT_EQ(encode_e2m1(-1.75), 0b1100);
  EXPECT_EQ(encode_e2m1(-2.5), 0b1100);
  EXPECT_EQ(encode_e2m1(-5.0), 0b1110);
}

TEST(E2M1Encode, JustOffATieGoesToTheNearerValue) {
  const double up = 1.0 + 1e-9;
  const double down = 1.0 - 1e-9;
  EXPECT_EQ(encode_e2m1(0.25 * up), 0b0001);  // nearer 0.5
  EXPECT_EQ(encode_e2m1(0.75 * down), 0b0001);
  EXPECT_EQ(encode_e2m1(2.5 * up), 0b0101);  // nearer 3
  EXPECT_EQ(encode_e2m1(3.5 * down), 0b0101);
  EXPECT_EQ(encode_e2m1(5.0 * up), 0b0111);  // nearer 6
  EXPECT_EQ(encode_e2m1(4.99), 0b0110);
}

TEST(E2M1Encode, RepresentativeValues) {
  EXPECT_EQ(encode_e2m1(0.1), 0b0000);   // |0.1 - 0| < |0.1 - 0.5|
  EXPECT_EQ(encode_e2m1(0.6), 0b0001);   // 0.5
  EXPECT_EQ(encode_e2m1(1.3), 0b0011);   // 1.5
  EXPECT_EQ(encode_e2m1(2.2), 0b0100);   // 2
  EXPECT_EQ(encode_e2m1(2.9), 0b0101);   // 3
  EXPECT_EQ(encode_e2m1(4.6), 0b0110);   // 4
  EXPECT_EQ(encode_e2m1(5.5), 0b0111);   // 6
  EXPECT_EQ(encode_e2m1(-1.1), 0b1010);  // -1
}

TEST(E2M1Encode, SaturatesAtSix) {
  EXPECT_EQ(encode_e2m1(6.0), 0b0111);
  EXPECT_EQ(encode_e2m1(7.0), 0b0111);
  EXPECT_EQ(encode_e2m1(1e30), 0b0111);
  EXPECT_EQ(encode_e2m1(-8.0), 0b1111);
  EXPECT_EQ(encode_e2m1(std::numeric_limits<double>::infinity()), 0b0111);
  EXPECT_EQ(encode_e2m1(-std::numeric_limits<double>::infinity()), 0b1111);
}

TEST(E2M1Encode, SignedZeroAndNaN) {
  EXPECT_EQ(encode_e2m1(0.0), 0b0000);
  EXPECT_EQ(encode_e2m1(-0.0), 0b1000);
  EXPECT_EQ(encode_e2m1(-1e-30), 0b1000);  // rounds to -0, sign kept
  EXPECT_EQ(encode_e2m1(std::numeric_limits<double>::quiet_NaN()), 0b0000);
  EXPECT_EQ(encode_e2m1(-std::numeric_limits<double>::quiet_NaN()), 0b0000);
}

// Sweep [-8, 8] in steps of 1/64 (every tie lies on this grid) and check that the chosen value
// is a nearest one among the 15 representable values, and that on a tie it has mantissa 0.
TEST(E2M1Encode, SweepPicksANearestValueAndBreaksTiesToEven) {
  for (int i = -512; i <= 512; ++i) {
    const double x = i / 64.0;
    const std::uint8_t code = encode_e2m1(x);
    const double chosen = decode_e2m1(code);
    const double clamped = std::fmax(-6.0, std::fmin(6.0, x));
    bool tie = false;
    for (int other = 0; other < 16; ++other) {
      const double candidate = decode_e2m1(static_cast<std::uint8_t>(other));
      if (candidate == chosen) continue;
      const double d_chosen = std::fabs(clamped - chosen);
      const double d_other = std::fabs(clamped - candidate);
      ASSERT_LE(d_chosen, d_other) << "x=" << x << " code=" << int(code) << " other=" << other;
      if (d_chosen == d_other) tie = true;
    }
    if (tie) {
      EXPECT_EQ(code & 1, 0) << "tie at x=" << x << " went to odd code " << int(code);
    }
  }
}

// The encoder written as a chain of decision thresholds (the form MLX's fp4 encoder uses):
// > 5 -> 6, >= 3.5 -> 4, > 2.5 -> 3, >= 1.75 -> 2, > 1.25 -> 1.5, >= 0.75 -> 1, > 0.25 -> 0.5.
// Strict > at a tie keeps the lower (even) value, >= takes the upper (even) one.
double threshold_encode_magnitude(double a) {
  if (a > 5.0) return 6.0;
  if (a >= 3.5) return 4.0;
  if (a > 2.5) return 3.0;
  if (a >= 1.75) return 2.0;
  if (a > 1.25) return 1.5;
  if (a >= 0.75) return 1.0;
  if (a > 0.25) return 0.5;
  return 0.0;
}

TEST(E2M1Encode, MatchesTheThresholdChain) {
  for (int i = -1024; i <= 1024; ++i) {
    const double x = i / 128.0;
    const double expected = threshold_encode_magnitude(std::fabs(x));
    EXPECT_EQ(std::fabs(decode_e2m1(encode_e2m1(x))), expected) << "x=" << x;
  }
}

// FP16 patterns written out by hand: sign << 15 | exponent << 10 | mantissa.
//   0.5 = 2^-1        -> exponent -1 + 15 = 14 = 01110, mantissa 0   -> 0x3800
//   1   = 2^0         -> exponent 15 = 01111                         -> 0x3C00
//   1.5 = 2^0 * 1.5   -> exponent 15, mantissa 10 0000 0000 (0x200)  -> 0x3E00
//   2   = 2^1         -> exponent 16 = 10000                         -> 0x4000
//   3   = 2^1 * 1.5   -> 0x4000 | 0x200                              -> 0x4200
//   4   = 2^2         -> exponent 17 = 10001                         -> 0x4400
//   6   = 2^2 * 1.5   -> 0x4400 | 0x200                              -> 0x4600
constexpr std::array<std::uint16_t, 8> kFp16Bits = {0x0000, 0x3800, 0x3C00, 0x3E00,
                                                    0x4000, 0x4200, 0x4400, 0x4600};

TEST(E2M1Fp16, BitPatternsOfAllCodes) {
  for (int code = 0; code < 8; ++code) {
    EXPECT_EQ(e2m1_to_fp16_bits(static_cast<std::uint8_t>(code)), kFp16Bits[code]) << code;
    EXPECT_EQ(e2m1_to_fp16_bits(static_cast<std::uint8_t>(code | 8)), kFp16Bits[code] | 0x8000)
        << code;
  }
}

TEST(E2M1Fp16, BitPatternsAgreeWithDecode) {
  for (int code = 0; code < 16; ++code) {
    const auto c = static_cast<std::uint8_t>(code);
    const Half from_bits = half_from_bits(e2m1_to_fp16_bits(c));
    EXPECT_EQ(static_cast<float>(from_bits), decode_e2m1(c)) << code;
    EXPECT_EQ(std::signbit(static_cast<float>(from_bits)), std::signbit(decode_e2m1(c))) << code;
    // And the pattern is exactly what the FP16 conversion of the decoded value gives.
    EXPECT_EQ(e2m1_to_fp16_bits(c), half_bits(to_half(decode_e2m1(c)))) << code;
  }
}

TEST(E2M1Fp16, UnbiasedPatternTimesTwoToTheFourteenthIsTheValue) {
  // Code 0111 -> 0111 << 9 = 0x0E00: exponent 3, mantissa 0x200 -> 2^(3-15) * 1.5; times 2^14
  // gives 2^2 * 1.5 = 6. Code 0001 -> 0x0200: FP16 subnormal 0x200 * 2^-24 = 2^-15; times 2^14
  // gives 0.5.
  EXPECT_EQ(e2m1_to_fp16_bits_unbiased(0b0111), 0x0E00);
  EXPECT_EQ(e2m1_to_fp16_bits_unbiased(0b0001), 0x0200);
  EXPECT_EQ(e2m1_to_fp16_bits_unbiased(0b1001), 0x8200);
  EXPECT_EQ(kE2M1UnbiasedScale, 16384.0f);
  for (int code = 0; code < 16; ++code) {
    const auto c = static_cast<std::uint8_t>(code);
    const float raw = static_cast<float>(half_from_bits(e2m1_to_fp16_bits_unbiased(c)));
    EXPECT_EQ(raw * 16384.0f, decode_e2m1(c)) << code;
  }
}

}  // namespace
}  // namespace marlin::kernels
