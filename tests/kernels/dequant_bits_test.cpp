// The kernels' bit tricks (magic-number U4, shifted FP4) against the plain formulas.
#include "kernels/host/dequant_bits.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kernels/host/e2m1.h"
#include "kernels/host/packed_weights.h"
#include "kernels/host/test_inputs.h"

namespace marlin::kernels {
namespace {

TEST(MagicConstants, BitPatterns) {
  // 1024 = 2^10: exponent field 10 + 15 = 25 = 0b11001, mantissa 0 -> 0x6400.
  EXPECT_EQ(half_bits(to_half(1024.0)), kMagic1024Bits);
  EXPECT_EQ((kMagic1024Bits >> 10) & 0x1F, 25);
  // 1032 = 1024 + 8: the FP16 ulp at 1024 is 2^(10 - 10) = 1, so the mantissa is 8 -> 0x6408.
  EXPECT_EQ(half_bits(to_half(1032.0)), kMagic1032Bits);
  // ORing a nibble q into the mantissa of 1024 gives 1024 + q for every q.
  for (int q = 0; q < 16; ++q) {
    EXPECT_EQ(static_cast<double>(half_from_bits(static_cast<std::uint16_t>(0x6400 | q))),
              1024.0 + q);
  }
}

TEST(MagicConstants, MarlinHighNibbleFmaConstants) {
  // The second nibble of a byte lands at mantissa bits 4..7: 1024 + 16 q. Marlin turns it into
  // q - 8 with one FMA: (1024 + 16 q) * 1/16 + (-72) = 64 + q - 72.
  //   1/16 = 2^-4: exponent -4 + 15 = 11 = 0b01011 -> 0x2C00
  //   -72 = -2^6 * 1.125: sign 1, exponent 21 = 0b10101, mantissa 0.125 * 1024 = 128 -> 0xD480
  //   -64 = -2^6: sign 1, exponent 21, mantissa 0 -> 0xD400 (plain U4: gives q)
  EXPECT_EQ(half_bits(to_half(1.0 / 16.0)), 0x2C00);
  EXPECT_EQ(half_bits(to_half(-72.0)), 0xD480);
  EXPECT_EQ(half_bits(to_half(-64.0)), 0xD400);
  for (int q = 0; q < 16; ++q) {
    const Half high = half_from_bits(static_cast<std::uint16_t>(0x6400 | (q << 4)));
    EXPECT_EQ(static_cast<double>(high), 1024.0 + 16 * q);
    const Half u4b8 = static_cast<Half>(high * half_from_bits(0x2C00) + half_from_bits(0xD480));
    const Half u4 = static_cast<Half>(high * half_from_bits(0x2C00) + half_from_bits(0xD400));
    EXPECT_EQ(static_cast<float>(u4b8), q - 8.0f) << q;
    EXPECT_EQ(static_cast<float>(u4), static_cast<float>(q)) << q;
  }
}

TEST(MagicConstants, Fp4TopOfLaneMaskAndShift) {
  // A nibble at the top of a 16-bit lane (bits 12..15): (lane & 0x8000) | ((lane & 0x7000) >> 3)
  // is the same pattern as S << 15 | (E, M) << 9.
  for (std::uint32_t nibble = 0; nibble < 16; ++nibble) {
    const std::uint32_t lane = nibble << 12;
    const std::uint32_t shifted = (lane & 0x8000u) | ((lane & 0x7000u) >> 3);
    EXPECT_EQ(shifted, e2m1_to_fp16_bits_unbiased(static_cast<std::uint8_t>(nibble))) << nibble;
  }
}

TEST(MagicU4, PairsHoldNibblesJAndJPlusFour) {
  // Word 0x76543210 has q = i in nibble i. The first masked pair holds nibbles 0 and 4:
  // 0x76543210 & 0x000F000F = 0x00040000 | 0x00000000 -> halves 1024 + 0 and 1024 + 4.
  const std::uint32_t masked = (0x76543210u & 0x000F000Fu) | 0x64006400u;
  EXPECT_EQ(masked, 0x64046400u);
  const std::array<Half, 8> q = dequant_u4_word_magic(0x76543210u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(static_cast<float>(q[i]), static_cast<float>(i)) << i;
  const std::array<Half, 8> s = dequant_u4b8_word_magic(0x76543210u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(static_cast<float>(s[i]), i - 8.0f) << i;
}

TEST(BitTricks, AgreeWithPlainDequantizationOnAllNibblesAndRandomWords) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  RandomInputs random(seed);
  std::vector<std::uint32_t> words;
  for (std::uint32_t v = 0; v < 16; ++v) words.push_back(v * 0x11111111u);  // every nibble
  for (int i = 0; i < 200; ++i) {
    words.push_back(static_cast<std::uint32_t>(random.uniform_int(0, 0xFFFFFFFFLL)));
  }
  for (const std::uint32_t word : words) {
    const std::array<Half, 8> u4b8 = dequant_u4b8_word_magic(word);
    const std::array<Half, 8> u4 = dequant_u4_word_magic(word);
    const std::array<Half, 8> fp4 = dequant_fp4_word_shift(word);
    for (int i = 0; i < 8; ++i) {
      const auto code = static_cast<std::uint8_t>((word >> (4 * i)) & 0xF);
      EXPECT_EQ(static_cast<float>(u4b8[i]),
                dequantize_code(WeightFormatKind::kU4B8, code, 1.0f, 0));
      EXPECT_EQ(static_cast<float>(u4[i]),
                dequantize_code(WeightFormatKind::kU4ZeroPoint, code, 1.0f, 0));
      EXPECT_EQ(static_cast<float>(fp4[i]), decode_e2m1(code));
      EXPECT_EQ(std::signbit(static_cast<float>(fp4[i])), (code & 8) != 0);
    }
  }
}

}  // namespace
}  // namespace marlin::kernels
