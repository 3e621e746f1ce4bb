// metal::half against an independent binary16 encoder (round to nearest, ties to even).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <metal_stdlib>

namespace {

// Reference: round |f| to the binary16 grid with double arithmetic, then encode the bits.
std::uint16_t reference_bits(float f) {
  const std::uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (std::isnan(f)) return 0x7E00;
  const double a = std::fabs(static_cast<double>(f));
  if (std::isinf(f)) return sign | 0x7C00;
  if (a == 0.0) return sign;
  int exp = 0;
  std::frexp(a, &exp);  // a = m * 2^exp, m in [0.5, 1)
  // Quantum: 2^(exp - 11) for normals, 2^-24 for subnormals.
  const int q = std::max(exp - 11, -24);
  const double rounded = std::nearbyint(std::ldexp(a, -q)) * std::ldexp(1.0, q);
  if (rounded >= 65520.0) return sign | 0x7C00;
  if (rounded < std::ldexp(1.0, -14)) {
    return sign | static_cast<std::uint16_t>(rounded / std::ldexp(1.0, -24));
  }
  int e = 0;
  const double m = std::frexp(rounded, &e);  // rounded = m * 2^e
  const int biased = e - 1 + 15;
  const auto mant = static_cast<std::uint16_t>((m * 2.0 - 1.0) * 1024.0);
  return sign | static_cast<std::uint16_t>(biased << 10) | mant;
}

std::uint16_t shim_bits(float f) { return metal::half(f).bits(); }

TEST(HalfTest, LayoutMatchesFloat16) {
  static_assert(sizeof(metal::half) == sizeof(_Float16));
  const _Float16 x = static_cast<_Float16>(1.5f);
  EXPECT_EQ(std::bit_cast<metal::half>(x).to_float(), 1.5f);
}

TEST(HalfTest, EdgeCases) {
  const float cases[] = {
      1.0f,
      -2.5f,
      65504.0f,  // largest finite
      65519.0f,
      65520.0f,
      1e6f,                                           // below / at the overflow tie, far above
      std::ldexp(1.0f, -24),                          // smallest subnormal
      std::ldexp(1.0f, -25),                          // tie between 0 and 2^-24: even (0)
      std::ldexp(1.5f, -25),                          // above the tie: 2^-24
      std::ldexp(3.0f, -25),                          // tie between 1 and 2 units: even (2)
      std::ldexp(1.0f, -14),                          // smallest normal
      std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25),  // tie across the subnormal boundary
      1.0f + std::ldexp(1.0f, -11),                   // tie: down to 1.0 (even)
      1.0f + 3.0f * std::ldexp(1.0f, -11),            // tie: up to 1 + 2^-9 (even)
      -0.0f,
      std::numeric_limits<float>::infinity(),
      0.1f,
      3.14159f};
  for (float f : cases) EXPECT_EQ(shim_bits(f), reference_bits(f)) << f;
  EXPECT_EQ(reference_bits(std::ldexp(1.0f, -25)), 0u);
  EXPECT_EQ(reference_bits(std::ldexp(3.0f, -25)), 2u);
  EXPECT_EQ(reference_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00u);
  EXPECT_EQ(reference_bits(65520.0f), 0x7C00u);
  EXPECT_TRUE(std::isnan(metal::half(std::nanf("")).to_float()));
}

TEST(HalfTest, SweepOfFloatBitPatterns) {
  // About 100k float bit patterns spread over the whole range (NaNs excluded).
  for (std::uint64_t u = 0; u <= 0xFFFFFFFFull; u += 40879) {
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(u));
    if (std::isnan(f)) continue;
    ASSERT_EQ(shim_bits(f), reference_bits(f)) << std::hexfloat << f;
  }
}

TEST(HalfTest, ArithmeticRoundsOnce) {
  const metal::half a = 1.0f;
  const metal::half b = std::ldexp(1.0f, -11);
  EXPECT_EQ((a + b).bits(), 0x3C00u);  // exact sum is a tie: even
  const metal::half c = 3.0f;
  EXPECT_EQ((c / metal::half(7.0f)).bits(), reference_bits(3.0f / 7.0f));
  EXPECT_EQ((c * c).to_float(), 9.0f);
  const metal::half big = 60000.0f;
  EXPECT_TRUE(std::isinf((big + big).to_float()));
  // Mixed with float gives float; with int gives half.
  const float mixed = c * 0.5f;
  EXPECT_EQ(mixed, 1.5f);
  const metal::half with_int = c * 2;
  EXPECT_EQ(with_int.to_float(), 6.0f);
  EXPECT_TRUE(metal::half(2.0f) > metal::half(1.0f));
  EXPECT_EQ((-c).to_float(), -3.0f);
}

}  // namespace
