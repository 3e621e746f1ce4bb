// FP4 E2M1: the 4-bit float of OCP MX / NVFP4 and of the FP4 Marlin kernels.
//
// A code is 4 bits [S | E1 E0 | M], exponent bias 1, no infinities and no NaN:
//   E = 0:  value = (-1)^S * M * 0.5                 (0 or 0.5; subnormal)
//   E > 0:  value = (-1)^S * 2^(E-1) * (1 + M * 0.5)  (1, 1.5, 2, 3, 4, 6)
// Magnitudes of codes 0..7: 0, 0.5, 1, 1.5, 2, 3, 4, 6. Codes 8..15 are their negatives
// (code 8 is -0). See docs/weight-formats.md.
#pragma once

#include <cstdint>

namespace marlin::kernels {

inline constexpr double kE2M1Max = 6.0;
inline constexpr int kE2M1CodeCount = 16;

// Value of a code; only the low 4 bits of `code` are used.
float decode_e2m1(std::uint8_t code);

// Nearest code to x. Ties go to the code whose mantissa bit is 0 (round half to even), e.g.
// 0.25 -> 0, 0.75 -> 1, 1.25 -> 1, 1.75 -> 2, 2.5 -> 2, 3.5 -> 4, 5 -> 4. Magnitudes above 6
// (and +-inf) saturate to +-6. The sign is kept: x in (-0.25, -0] gives code 8 (-0). NaN has
// no E2M1 encoding and gives code 0 (+0); the quantizers reject NaN input before encoding.
std::uint8_t encode_e2m1(double x);

// Exact FP16 bit pattern of the code's value, built from the fields: for E > 0 the FP16
// exponent is E + 14 (bias 15 - 1) and the mantissa is M << 9; E = 0, M = 1 (0.5) is the FP16
// normal 0x3800; E = 0, M = 0 is +-0.
std::uint16_t e2m1_to_fp16_bits(std::uint8_t code);

// The shift-only pattern S << 15 | (E,M) << 9 that dequantizing kernels build with a mask and
// a shift. Read as FP16 it equals value * 2^-14 for every code (subnormal 0.5 included), so
// the kernel multiplies by 2^14 (or folds 2^14 into the scale).
std::uint16_t e2m1_to_fp16_bits_unbiased(std::uint8_t code);

// The factor that turns an unbiased pattern into the value: 2^14 = 16384.
inline constexpr float kE2M1UnbiasedScale = 16384.0f;

}  // namespace marlin::kernels
