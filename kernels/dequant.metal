// Standalone dequantization kernels: a packed K x N weight matrix (docs/weight-formats.md)
// into FP16 W[K, N], row-major. One thread per packed word: thread (x, y) expands word
// [y][x], i.e. column x, K rows 8y .. 8y+7 (int8: 4y .. 4y+3), and skips rows past K.
//
// Grid: threads (N, ceil(K / values_per_word)) in threadgroups of any shape.
// Buffers: 0 packed codes (uint), 1 scales (half), 2 zero points (uint; dequant_u4 with
// has_zero_points only), 3 W out (half), 4 DequantParams.
#include <metal_stdlib>

#include "common/dequant.h"
#include "common/params.h"
using namespace metal;

inline half scale_of(device const half* scales, constant DequantParams& p, uint k, uint col) {
  return scales[(k / p.group_size) * p.n + col];
}

kernel void dequant_fp4(device const uint* codes [[buffer(0)]],
                        device const half* scales [[buffer(1)]],
                        device half* w [[buffer(3)]],
                        constant DequantParams& p [[buffer(4)]],
                        uint2 gid [[thread_position_in_grid]]) {
  const uint col = gid.x;
  const uint k8 = gid.y * 8;
  if (col >= p.n || k8 >= p.k) {
    return;
  }
  half out[8];
  dequant_fp4_word(codes[gid.y * p.n + col], scale_of(scales, p, k8, col), out);
  for (uint j = 0; j < 8 && k8 + j < p.k; ++j) {
    w[(k8 + j) * p.n + col] = out[j];
  }
}

kernel void dequant_u4(device const uint* codes [[buffer(0)]],
                       device const half* scales [[buffer(1)]],
                       device const uint* zeros [[buffer(2)]],
                       device half* w [[buffer(3)]],
                       constant DequantParams& p [[buffer(4)]],
                       uint2 gid [[thread_position_in_grid]]) {
  const uint col = gid.x;
  const uint k8 = gid.y * 8;
  if (col >= p.n || k8 >= p.k) {
    return;
  }
  half zero = 8.0h;
  if (p.has_zero_points != 0) {
    const uint zero_word = zeros[(k8 / p.group_size) * ((p.n + 7) / 8) + col / 8];
    zero = half((zero_word >> (4 * (col % 8))) & 0xFu);
  }
  half out[8];
  dequant_u4_word(codes[gid.y * p.n + col], zero, scale_of(scales, p, k8, col), out);
  for (uint j = 0; j < 8 && k8 + j < p.k; ++j) {
    w[(k8 + j) * p.n + col] = out[j];
  }
}

kernel void dequant_int8(device const uint* codes [[buffer(0)]],
                         device const half* scales [[buffer(1)]],
                         device half* w [[buffer(3)]],
                         constant DequantParams& p [[buffer(4)]],
                         uint2 gid [[thread_position_in_grid]]) {
  const uint col = gid.x;
  const uint k4 = gid.y * 4;
  if (col >= p.n || k4 >= p.k) {
    return;
  }
  half out[4];
  dequant_int8_word(codes[gid.y * p.n + col], scale_of(scales, p, k4, col), out);
  for (uint j = 0; j < 4 && k4 + j < p.k; ++j) {
    w[(k4 + j) * p.n + col] = out[j];
  }
}
