// Calibration microbenchmarks: latency and throughput of simdgroup shuffles and reductions.
//
// As calibration_alu.metal: one threadgroup of 32 threads, 256 operations per repetition;
// *_dependent runs one chain (latency = (T2 - T1) / ((R2 - R1) * 256) cycles), *_independent
// eight interleaved chains (throughput per operation per scheduler).
#include <metal_stdlib>

#include "calibration_params.h"
using namespace metal;

kernel void calib_shuffle_dependent(device uint* out [[buffer(0)]],
                                    constant CalibParams& p [[buffer(1)]],
                                    uint gid [[thread_position_in_grid]]) {
  uint x = gid;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP256(x = simd_shuffle_xor(x, 1u);)
  }
  if (x == as_type<uint>(p.sentinel)) out[gid] = x;
}

kernel void calib_shuffle_independent(device uint* out [[buffer(0)]],
                                      constant CalibParams& p [[buffer(1)]],
                                      uint gid [[thread_position_in_grid]]) {
  uint x0 = gid, x1 = gid ^ 1u, x2 = gid ^ 2u, x3 = gid ^ 3u;
  uint x4 = gid ^ 4u, x5 = gid ^ 5u, x6 = gid ^ 6u, x7 = gid ^ 7u;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = simd_shuffle_xor(x0, 1u); x1 = simd_shuffle_xor(x1, 1u);
                          x2 = simd_shuffle_xor(x2, 1u); x3 = simd_shuffle_xor(x3, 1u);
                          x4 = simd_shuffle_xor(x4, 1u); x5 = simd_shuffle_xor(x5, 1u);
                          x6 = simd_shuffle_xor(x6, 1u); x7 = simd_shuffle_xor(x7, 1u);))
  }
  if ((x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7) == as_type<uint>(p.sentinel)) out[gid] = x0;
}

kernel void calib_simd_reduce_dependent(device uint* out [[buffer(0)]],
                                        constant CalibParams& p [[buffer(1)]],
                                        uint gid [[thread_position_in_grid]]) {
  uint x = gid;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP256(x = simd_sum(x);)
  }
  if (x == as_type<uint>(p.sentinel)) out[gid] = x;
}

kernel void calib_simd_reduce_independent(device uint* out [[buffer(0)]],
                                          constant CalibParams& p [[buffer(1)]],
                                          uint gid [[thread_position_in_grid]]) {
  uint x0 = gid, x1 = gid ^ 1u, x2 = gid ^ 2u, x3 = gid ^ 3u;
  uint x4 = gid ^ 4u, x5 = gid ^ 5u, x6 = gid ^ 6u, x7 = gid ^ 7u;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = simd_sum(x0); x1 = simd_sum(x1); x2 = simd_sum(x2);
                          x3 = simd_sum(x3); x4 = simd_sum(x4); x5 = simd_sum(x5);
                          x6 = simd_sum(x6); x7 = simd_sum(x7);))
  }
  if ((x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7) == as_type<uint>(p.sentinel)) out[gid] = x0;
}
