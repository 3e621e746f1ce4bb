#include "kernels/host/dequant_bits.h"

namespace marlin::kernels {
namespace {

// Splits one 32-bit value into its low and high FP16 halves.
struct HalfPair {
  Half low;
  Half high;
};

HalfPair as_half_pair(std::uint32_t bits) {
  return {half_from_bits(static_cast<std::uint16_t>(bits & 0xFFFFu)),
          half_from_bits(static_cast<std::uint16_t>(bits >> 16))};
}

// 1024 + q pairs for nibbles (j, j + 4), j = 0..3, minus `bias` (an FP16 constant).
std::array<Half, 8> magic_pairs(std::uint32_t word, std::uint16_t bias_bits) {
  constexpr std::uint32_t kNibbleMask = 0x000F000Fu;
  constexpr std::uint32_t kExponent = 0x64006400u;
  const Half bias = half_from_bits(bias_bits);
  std::array<Half, 8> values{};
  for (std::size_t j = 0; j < 4; ++j) {
    const HalfPair pair = as_half_pair(((word >> (4 * j)) & kNibbleMask) | kExponent);
    values[j] = static_cast<Half>(pair.low - bias);
    values[j + 4] = static_cast<Half>(pair.high - bias);
  }
  return values;
}

}  // namespace

std::array<Half, 8> dequant_u4b8_word_magic(std::uint32_t word) {
  return magic_pairs(word, kMagic1032Bits);
}

std::array<Half, 8> dequant_u4_word_magic(std::uint32_t word) {
  return magic_pairs(word, kMagic1024Bits);
}

std::array<Half, 8> dequant_fp4_word_shift(std::uint32_t word) {
  const Half two_to_14 = half_from_bits(0x7400);  // 2^(29 - 15) = 16384
  std::array<Half, 8> values{};
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t nibble = (word >> (4 * i)) & 0xFu;
    const auto bits = static_cast<std::uint16_t>(((nibble & 0x8u) << 12) | ((nibble & 0x7u) << 9));
    values[static_cast<std::size_t>(i)] = static_cast<Half>(half_from_bits(bits) * two_to_14);
  }
  return values;
}

}  // namespace marlin::kernels
