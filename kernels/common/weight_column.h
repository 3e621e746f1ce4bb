// Reading one packed word of a quantized weight column and dequantizing it, with the bounds
// of the matrix applied: values at k >= K or columns >= N come out as 0, whatever the padding
// codes are (a padded U4B8 code 0 would otherwise mean -8 * scale).
#pragma once

#include <metal_stdlib>

#include "dequant.h"
#include "params.h"
using namespace metal;

// The 4-bit weight formats the GEMM kernels are instantiated for.
constant constexpr uint kFormatFp4 = 0;   // E2M1 codes, FP16 group scales
constant constexpr uint kFormatU4B8 = 1;  // unsigned 4-bit, zero 8
constant constexpr uint kFormatU4Zp = 2;  // unsigned 4-bit, 4-bit zero point per group/column

// The 8 weights w[k8 .. k8+7][col] (k8 a multiple of 8, so all 8 share one scale group).
template <uint FORMAT>
inline void load_weight_word(device const uint* codes, device const half* scales,
                             device const uint* zeros, constant GemmParams& p, uint k8, uint col,
                             thread half* out) {
  if (col >= p.n || k8 >= p.k) {
#pragma clang loop unroll(full)
    for (uint j = 0; j < 8; ++j) {
      out[j] = 0.0h;
    }
    return;
  }
  const uint word = codes[(k8 / 8) * p.n + col];
  const uint group = k8 / p.group_size;
  const half scale = scales[group * p.n + col];
  if (FORMAT == kFormatFp4) {
    dequant_fp4_word(word, scale, out);
  } else if (FORMAT == kFormatU4B8) {
    dequant_u4_word(word, 8.0h, scale, out);
  } else {
    const uint zero_word = zeros[group * ((p.n + 7) / 8) + col / 8];
    dequant_u4_word(word, half((zero_word >> (4 * (col % 8))) & 0xFu), scale, out);
  }
#pragma clang loop unroll(full)
  for (uint j = 0; j < 8; ++j) {
    if (k8 + j >= p.k) {
      out[j] = 0.0h;
    }
  }
}
