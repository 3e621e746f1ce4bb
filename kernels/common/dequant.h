// Dequantization of packed 4-bit and 8-bit weight codes into half, in registers.
//
// Layouts (docs/weight-formats.md): a uint32 holds 8 consecutive K values of one column,
// value k % 8 in bits [4*(k%8), 4*(k%8)+4) (int8: 4 values, byte k % 4). Each function turns
// one word into its values, already multiplied by the group scale.
#pragma once

#include <metal_stdlib>
using namespace metal;

// E2M1 code (sign, 2 exponent bits, 1 mantissa bit, bias 1) -> half, exact.
// The 3 magnitude bits placed at bits 9..11 of a half give 2^(e-15)*(1+m/2) for e > 0 and
// m*2^-15 for e = 0; multiplying by 2^14 restores the E2M1 bias of 1.
inline half e2m1_to_half(uint code) {
  const ushort bits = ushort(((code & 0x8u) << 12) | ((code & 0x7u) << 9));
  return as_type<half>(bits) * 16384.0h;
}

// Eight E2M1 codes of one word, times the scale.
inline void dequant_fp4_word(uint word, half scale, thread half* out) {
#pragma clang loop unroll(full)
  for (uint j = 0; j < 8; ++j) {
    out[j] = e2m1_to_half((word >> (4 * j)) & 0xFu) * scale;
  }
}

// Eight unsigned 4-bit codes q of one word as (q - zero) * scale, with the 1024 magic number:
// OR-ing a nibble into the mantissa of half 1024.0 (0x6400) gives exactly 1024 + q; nibbles j
// and j + 4 sit 16 bits apart and are converted at once as a half2. U4B8 uses zero = 8.
inline void dequant_u4_word(uint word, half zero, half scale, thread half* out) {
  const half2 bias = half2(1024.0h + zero);
#pragma clang loop unroll(full)
  for (uint j = 0; j < 4; ++j) {
    const uint pair = ((word >> (4 * j)) & 0x000F000Fu) | 0x64006400u;
    const half2 v = (as_type<half2>(pair) - bias) * scale;
    out[j] = v.x;
    out[j + 4] = v.y;
  }
}

// Four signed 8-bit codes of one word (value k % 4 in byte k % 4), times the scale.
inline void dequant_int8_word(uint word, half scale, thread half* out) {
#pragma clang loop unroll(full)
  for (uint j = 0; j < 4; ++j) {
    out[j] = half(as_type<char>(uchar((word >> (8 * j)) & 0xFFu))) * scale;
  }
}
