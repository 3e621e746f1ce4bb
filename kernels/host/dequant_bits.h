// Host mirrors of the bit-level dequantization tricks the Metal kernels use, so the tricks
// (and the constants in the design notes) are checked against the plain formulas of
// packed_weights.h. Each function turns one packed uint32 word into its 8 values in K order
// (element i is row 8p + i of the word's packed row p), before the scale is applied.
//
//   U4 "magic number": (word >> 4j) & 0x000F000F | 0x64006400 is a pair of FP16 values
//     1024 + q: the low half holds nibble j (row 8p + j), the high half nibble j + 4
//     (row 8p + j + 4). Subtracting 0x6400 (1024.0) gives q, subtracting 0x6408 (1032.0)
//     gives q - 8 (U4B8).
//   FP4 E2M1 shift: S << 15 | (nibble & 7) << 9 read as FP16 is value * 2^-14; multiplying
//     by 2^14 (16384.0) gives the value (see e2m1.h).
#pragma once

#include <array>
#include <cstdint>

#include "kernels/host/fp16.h"

namespace marlin::kernels {

// FP16 bit patterns of the magic constants.
inline constexpr std::uint16_t kMagic1024Bits = 0x6400;  // 1024.0
inline constexpr std::uint16_t kMagic1032Bits = 0x6408;  // 1032.0 = 1024 + 8

// q - 8 for the 8 nibbles of a U4B8 word, built with the 0x6400 bias trick in pairs.
std::array<Half, 8> dequant_u4b8_word_magic(std::uint32_t word);
// q for the 8 nibbles of a U4 word (the zero point is subtracted by the caller).
std::array<Half, 8> dequant_u4_word_magic(std::uint32_t word);
// E2M1 values of the 8 nibbles of an FP4 word, through the 2^14 shift trick.
std::array<Half, 8> dequant_fp4_word_shift(std::uint32_t word);

}  // namespace marlin::kernels
