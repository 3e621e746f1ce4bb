// Calibration microbenchmarks: throughput of the ALU classes besides FMA and integer add
// (FP32 add, integer multiply, compare/select, conversion, exp2/log2, reciprocal, rsqrt).
//
// Launch each with one threadgroup of 32 threads (one simdgroup on one scheduler) and time
// two launches with reps = R1 and R2. Each repetition executes 256 operations of the class in
// eight interleaved chains, so the scheduler can issue one every throughput interval:
// throughput = (T2 - T1) / ((R2 - R1) * 256) cycles per op per scheduler. The values do not
// matter (chains may reach inf or NaN); the sentinel store keeps the work alive.
#include <metal_stdlib>

#include "calibration_params.h"
using namespace metal;

kernel void calib_fp32_add_independent(device float* out [[buffer(0)]],
                                       constant CalibParams& p [[buffer(1)]],
                                       uint gid [[thread_position_in_grid]]) {
  float x0 = p.seed, x1 = p.seed + 1, x2 = p.seed + 2, x3 = p.seed + 3;
  float x4 = p.seed + 4, x5 = p.seed + 5, x6 = p.seed + 6, x7 = p.seed + 7;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = x0 + 0.5f; x1 = x1 + 0.5f; x2 = x2 + 0.5f; x3 = x3 + 0.5f;
                          x4 = x4 + 0.5f; x5 = x5 + 0.5f; x6 = x6 + 0.5f; x7 = x7 + 0.5f;))
  }
  if (x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 == p.sentinel) out[gid] = x0;
}

kernel void calib_int_mul_independent(device uint* out [[buffer(0)]],
                                      constant CalibParams& p [[buffer(1)]],
                                      uint gid [[thread_position_in_grid]]) {
  uint x0 = gid, x1 = gid ^ 1u, x2 = gid ^ 2u, x3 = gid ^ 3u;
  uint x4 = gid ^ 4u, x5 = gid ^ 5u, x6 = gid ^ 6u, x7 = gid ^ 7u;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = x0 * 5u; x1 = x1 * 5u; x2 = x2 * 5u; x3 = x3 * 5u; x4 = x4 * 5u;
                          x5 = x5 * 5u; x6 = x6 * 5u; x7 = x7 * 5u;))
  }
  if ((x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7) == as_type<uint>(p.sentinel)) out[gid] = x0;
}

kernel void calib_fp_cmp_select_independent(device float* out [[buffer(0)]],
                                            constant CalibParams& p [[buffer(1)]],
                                            uint gid [[thread_position_in_grid]]) {
  float x0 = p.seed, x1 = p.seed + 1, x2 = p.seed + 2, x3 = p.seed + 3;
  float x4 = p.seed + 4, x5 = p.seed + 5, x6 = p.seed + 6, x7 = p.seed + 7;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = fmax(x0, 0.5f); x1 = fmax(x1, 0.5f); x2 = fmax(x2, 0.5f);
                          x3 = fmax(x3, 0.5f); x4 = fmax(x4, 0.5f); x5 = fmax(x5, 0.5f);
                          x6 = fmax(x6, 0.5f); x7 = fmax(x7, 0.5f);))
  }
  if (x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 == p.sentinel) out[gid] = x0;
}

kernel void calib_convert_independent(device float* out [[buffer(0)]],
                                      constant CalibParams& p [[buffer(1)]],
                                      uint gid [[thread_position_in_grid]]) {
  float x0 = p.seed, x1 = p.seed + 1, x2 = p.seed + 2, x3 = p.seed + 3;
  float x4 = p.seed + 4, x5 = p.seed + 5, x6 = p.seed + 6, x7 = p.seed + 7;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = trunc(x0); x1 = trunc(x1); x2 = trunc(x2); x3 = trunc(x3);
                          x4 = trunc(x4); x5 = trunc(x5); x6 = trunc(x6); x7 = trunc(x7);))
  }
  if (x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 == p.sentinel) out[gid] = x0;
}

kernel void calib_exp2_log2_independent(device float* out [[buffer(0)]],
                                        constant CalibParams& p [[buffer(1)]],
                                        uint gid [[thread_position_in_grid]]) {
  float x0 = p.seed, x1 = p.seed + 1, x2 = p.seed + 2, x3 = p.seed + 3;
  float x4 = p.seed + 4, x5 = p.seed + 5, x6 = p.seed + 6, x7 = p.seed + 7;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = exp2(x0); x1 = exp2(x1); x2 = exp2(x2); x3 = exp2(x3); x4 = exp2(x4);
                          x5 = exp2(x5); x6 = exp2(x6); x7 = exp2(x7);))
  }
  if (x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 == p.sentinel) out[gid] = x0;
}

kernel void calib_reciprocal_independent(device float* out [[buffer(0)]],
                                         constant CalibParams& p [[buffer(1)]],
                                         uint gid [[thread_position_in_grid]]) {
  float x0 = p.seed, x1 = p.seed + 1, x2 = p.seed + 2, x3 = p.seed + 3;
  float x4 = p.seed + 4, x5 = p.seed + 5, x6 = p.seed + 6, x7 = p.seed + 7;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = 1.0f / x0; x1 = 1.0f / x1; x2 = 1.0f / x2; x3 = 1.0f / x3;
                          x4 = 1.0f / x4; x5 = 1.0f / x5; x6 = 1.0f / x6; x7 = 1.0f / x7;))
  }
  if (x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 == p.sentinel) out[gid] = x0;
}

kernel void calib_rsqrt_independent(device float* out [[buffer(0)]],
                                    constant CalibParams& p [[buffer(1)]],
                                    uint gid [[thread_position_in_grid]]) {
  float x0 = p.seed, x1 = p.seed + 1, x2 = p.seed + 2, x3 = p.seed + 3;
  float x4 = p.seed + 4, x5 = p.seed + 5, x6 = p.seed + 6, x7 = p.seed + 7;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = rsqrt(x0); x1 = rsqrt(x1); x2 = rsqrt(x2); x3 = rsqrt(x3);
                          x4 = rsqrt(x4); x5 = rsqrt(x5); x6 = rsqrt(x6); x7 = rsqrt(x7);))
  }
  if (x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 == p.sentinel) out[gid] = x0;
}
