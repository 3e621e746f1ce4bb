// Calibration microbenchmarks: ALU latency and throughput (FP32 FMA, FP16 FMA, integer add).
//
// Launch each with one threadgroup of 32 threads (one simdgroup, so one scheduler of one
// core) and time two launches with reps = R1 and R2 (for example 64 and 128) with GPU
// timestamps. Each repetition executes 256 operations of the kind under test.
//
//   *_dependent:   one chain, every op consumes the previous result. On hardware the chain
//                  runs at the op's latency: latency = (T2 - T1) / ((R2 - R1) * 256) cycles.
//   *_independent: eight chains interleaved, so the scheduler can issue an op every
//                  throughput interval: throughput = (T2 - T1) / ((R2 - R1) * 256) cycles
//                  per op per scheduler.
//
// T is in GPU core cycles: seconds x the GPU clock. The loop control (one increment and one
// compare per repetition) adds 2 of every 258 instructions, under 1%.
#include <metal_stdlib>
#include "calibration_params.h"
using namespace metal;

kernel void calib_fp32_fma_dependent(device float* out [[buffer(0)]],
                                     constant CalibParams& p [[buffer(1)]],
                                     uint gid [[thread_position_in_grid]]) {
  float x = p.seed;
  const float a = 0.999f;
  const float b = 0.001f;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP256(x = fma(x, a, b);)
  }
  if (x == p.sentinel) out[gid] = x;
}

kernel void calib_fp32_fma_independent(device float* out [[buffer(0)]],
                                       constant CalibParams& p [[buffer(1)]],
                                       uint gid [[thread_position_in_grid]]) {
  float x0 = p.seed, x1 = p.seed + 1, x2 = p.seed + 2, x3 = p.seed + 3;
  float x4 = p.seed + 4, x5 = p.seed + 5, x6 = p.seed + 6, x7 = p.seed + 7;
  const float a = 0.999f;
  const float b = 0.001f;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b);
                          x3 = fma(x3, a, b); x4 = fma(x4, a, b); x5 = fma(x5, a, b);
                          x6 = fma(x6, a, b); x7 = fma(x7, a, b);))
  }
  if (x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 == p.sentinel) out[gid] = x0;
}

kernel void calib_fp16_fma_dependent(device half* out [[buffer(0)]],
                                     constant CalibParams& p [[buffer(1)]],
                                     uint gid [[thread_position_in_grid]]) {
  half x = half(p.seed);
  const half a = 0.999h;
  const half b = 0.001h;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP256(x = fma(x, a, b);)
  }
  if (float(x) == p.sentinel) out[gid] = x;
}

kernel void calib_fp16_fma_independent(device half* out [[buffer(0)]],
                                       constant CalibParams& p [[buffer(1)]],
                                       uint gid [[thread_position_in_grid]]) {
  half x0 = half(p.seed), x1 = x0 + 1.0h, x2 = x0 + 2.0h, x3 = x0 + 3.0h;
  half x4 = x0 + 4.0h, x5 = x0 + 5.0h, x6 = x0 + 6.0h, x7 = x0 + 7.0h;
  const half a = 0.999h;
  const half b = 0.001h;
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b);
                          x3 = fma(x3, a, b); x4 = fma(x4, a, b); x5 = fma(x5, a, b);
                          x6 = fma(x6, a, b); x7 = fma(x7, a, b);))
  }
  if (float(x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7) == p.sentinel) out[gid] = x0;
}

kernel void calib_int_add_dependent(device uint* out [[buffer(0)]],
                                    constant CalibParams& p [[buffer(1)]],
                                    uint gid [[thread_position_in_grid]]) {
  uint x = gid;
  const uint step = as_type<uint>(p.seed);
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP256(x = x + step;)
  }
  if (x == as_type<uint>(p.sentinel)) out[gid] = x;
}

kernel void calib_int_add_independent(device uint* out [[buffer(0)]],
                                      constant CalibParams& p [[buffer(1)]],
                                      uint gid [[thread_position_in_grid]]) {
  uint x0 = gid, x1 = gid ^ 1u, x2 = gid ^ 2u, x3 = gid ^ 3u;
  uint x4 = gid ^ 4u, x5 = gid ^ 5u, x6 = gid ^ 6u, x7 = gid ^ 7u;
  const uint step = as_type<uint>(p.seed);
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(x0 = x0 + step; x1 = x1 + step; x2 = x2 + step; x3 = x3 + step;
                          x4 = x4 + step; x5 = x5 + step; x6 = x6 + step; x7 = x7 + step;))
  }
  if ((x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7) == as_type<uint>(p.sentinel)) out[gid] = x0;
}
