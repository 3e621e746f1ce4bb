#include "kernels/host/e2m1.h"

#include <array>
#include <cmath>

namespace marlin::kernels {
namespace {

constexpr std::uint8_t kSignBit = 0x8;
constexpr std::uint8_t kMagnitudeMask = 0x7;

// Magnitude of a non-negative code (0..7) from its exponent and mantissa fields.
constexpr double magnitude(int code) {
  const int exponent = (code >> 1) & 0x3;
  const int mantissa = code & 0x1;
  if (exponent == 0) return 0.5 * mantissa;
  return static_cast<double>(1 << (exponent - 1)) * (1.0 + 0.5 * mantissa);
}

// The 8 magnitudes, computed once from the fields.
constexpr std::array<double, 8> kMagnitudes = {magnitude(0), magnitude(1), magnitude(2),
                                               magnitude(3), magnitude(4), magnitude(5),
                                               magnitude(6), magnitude(7)};

// Element c (1..7): halfway between magnitudes c - 1 and c.
constexpr std::array<double, 8> midpoints() {
  std::array<double, 8> m{};
  for (std::size_t c = 1; c < m.size(); ++c) m[c] = (kMagnitudes[c - 1] + kMagnitudes[c]) / 2;
  return m;
}
constexpr std::array<double, 8> kMidpoints = midpoints();

}  // namespace

float decode_e2m1(std::uint8_t code) {
  const double value = kMagnitudes[code & kMagnitudeMask];
  return static_cast<float>((code & kSignBit) != 0 ? -value : value);
}

std::uint8_t encode_e2m1(double x) {
  if (std::isnan(x)) return 0;
  const std::uint8_t sign = std::signbit(x) ? kSignBit : 0;
  const double a = std::fabs(x);
  if (a >= kE2M1Max) return sign | kMagnitudeMask;
  // Nearest of the 8 magnitudes: a passes the midpoint below magnitude `code` when above it,
  // or on it (a tie) when `code` is even (mantissa bit 0). The midpoints are exact in double,
  // so ties are detected exactly, and they increase with the code, so the codes passed are
  // 1 to the nearest one: their count is its code. Counted without branches, which random
  // weights would mispredict.
  int passed = 0;
  for (int code = 1; code <= kMagnitudeMask; ++code) {
    const double midpoint = kMidpoints[static_cast<std::size_t>(code)];
    const int even = (code & 0x1) ^ 0x1;
    passed += static_cast<int>(a > midpoint) | (static_cast<int>(a == midpoint) & even);
  }
  return static_cast<std::uint8_t>(sign | passed);
}

std::uint16_t e2m1_to_fp16_bits(std::uint8_t code) {
  const auto sign = static_cast<std::uint16_t>((code & kSignBit) != 0 ? 0x8000 : 0);
  const int exponent = (code >> 1) & 0x3;
  const int mantissa = code & 0x1;
  constexpr int kBiasDelta = 15 - 1;  // FP16 bias minus E2M1 bias
  if (exponent > 0) {
    return static_cast<std::uint16_t>(sign | ((exponent + kBiasDelta) << 10) | (mantissa << 9));
  }
  if (mantissa == 1) {
    // 0.5 = 2^-1: an FP16 normal with exponent field -1 + 15 = 14 and mantissa 0.
    return static_cast<std::uint16_t>(sign | (14 << 10));
  }
  return sign;
}

std::uint16_t e2m1_to_fp16_bits_unbiased(std::uint8_t code) {
  const auto sign = static_cast<std::uint16_t>((code & kSignBit) != 0 ? 0x8000 : 0);
  return static_cast<std::uint16_t>(sign | ((code & kMagnitudeMask) << 9));
}

}  // namespace marlin::kernels
