// FP16 on the host: the IEEE 754 binary16 type used for activations, scales and outputs.
//
// Half is GCC's _Float16 (x86-64, g++ 12). It has the same size and bit layout as the execution
// engine's `half`, so host vectors of Half can back device buffers directly. Conversions from
// float and double round to nearest, ties to even (the IEEE default), and are done in one step
// (no double rounding through float).
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

namespace marlin::kernels {

using Half = _Float16;

static_assert(sizeof(Half) == 2, "Half must be a 16-bit IEEE binary16");

// Largest finite FP16 value (0x7BFF) and smallest positive subnormal (0x0001 = 2^-24).
inline constexpr double kHalfMax = 65504.0;
inline constexpr double kHalfMinSubnormal = 5.9604644775390625e-08;

// Raw bit pattern of a Half, and the Half with a given bit pattern.
inline std::uint16_t half_bits(Half value) { return std::bit_cast<std::uint16_t>(value); }
inline Half half_from_bits(std::uint16_t bits) { return std::bit_cast<Half>(bits); }

// Nearest FP16 value to `value` (ties to even). Values beyond the FP16 range become +-inf.
inline Half to_half(double value) { return static_cast<Half>(value); }

// The smallest FP16 value s with s >= value, for a finite value in [0, kHalfMax]. Used for
// quantization scales so that |w| / s never exceeds the largest code. Throws InputError
// (naming `what`) if value is negative, not finite, or above kHalfMax.
Half half_at_least(double value, const char* what);

// Element-wise conversions of whole buffers (exact to float; to FP16 rounds to nearest even).
std::vector<float> to_float_vector(std::span<const Half> values);
std::vector<Half> to_half_vector(std::span<const float> values);

}  // namespace marlin::kernels
