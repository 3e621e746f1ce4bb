// Calibration microbenchmarks: 8x8x8 simdgroup matrix multiply-accumulate, half inputs
// (calib_matmul_f16_*) and float inputs (calib_matmul_f32_*).
//
// Launch each with one threadgroup of 32 threads (one simdgroup on one scheduler) and time
// two launches with reps = R1 and R2. Each repetition issues 32 multiply-accumulates.
//
//   *_dependent:   every multiply accumulates into the same matrix, so each waits for the
//                  previous one: latency = (T2 - T1) / ((R2 - R1) * 32) cycles.
//   *_independent: four accumulators in turn, enough to cover the latency, so the FP pipe
//                  is the limit: throughput = (T2 - T1) / ((R2 - R1) * 32) cycles per
//                  multiply per scheduler.
//
// T is in GPU core cycles (seconds x the GPU clock). The accumulators are stored once at the
// end (a constant cost that cancels in T2 - T1).
#include <metal_stdlib>
#include "calibration_params.h"
using namespace metal;

template <typename T>
kernel void calib_matmul_dependent(device T* out [[buffer(0)]],
                                   constant CalibParams& p [[buffer(1)]]) {
  const simdgroup_matrix<T, 8, 8> a = make_filled_simdgroup_matrix<T, 8, 8>(T(p.seed));
  const simdgroup_matrix<T, 8, 8> b = make_filled_simdgroup_matrix<T, 8, 8>(T(0.5f));
  simdgroup_matrix<T, 8, 8> c = make_filled_simdgroup_matrix<T, 8, 8>(T(0.0f));
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(CALIB_REP4(simdgroup_multiply_accumulate(c, a, b, c);))
  }
  simdgroup_store(c, out, 8);
}

template <typename T>
kernel void calib_matmul_independent(device T* out [[buffer(0)]],
                                     constant CalibParams& p [[buffer(1)]]) {
  const simdgroup_matrix<T, 8, 8> a = make_filled_simdgroup_matrix<T, 8, 8>(T(p.seed));
  const simdgroup_matrix<T, 8, 8> b = make_filled_simdgroup_matrix<T, 8, 8>(T(0.5f));
  simdgroup_matrix<T, 8, 8> c0 = make_filled_simdgroup_matrix<T, 8, 8>(T(0.0f));
  simdgroup_matrix<T, 8, 8> c1 = make_filled_simdgroup_matrix<T, 8, 8>(T(0.0f));
  simdgroup_matrix<T, 8, 8> c2 = make_filled_simdgroup_matrix<T, 8, 8>(T(0.0f));
  simdgroup_matrix<T, 8, 8> c3 = make_filled_simdgroup_matrix<T, 8, 8>(T(0.0f));
  for (uint r = 0; r < p.reps; ++r) {
    CALIB_REP8(simdgroup_multiply_accumulate(c0, a, b, c0);
               simdgroup_multiply_accumulate(c1, a, b, c1);
               simdgroup_multiply_accumulate(c2, a, b, c2);
               simdgroup_multiply_accumulate(c3, a, b, c3);)
  }
  simdgroup_store(c0, out, 8);
  simdgroup_store(c1, out + 64, 8);
  simdgroup_store(c2, out + 128, 8);
  simdgroup_store(c3, out + 192, 8);
}

template [[host_name("calib_matmul_f16_dependent")]] kernel void calib_matmul_dependent<half>(
    device half* out [[buffer(0)]], constant CalibParams& p [[buffer(1)]]);
template [[host_name("calib_matmul_f32_dependent")]] kernel void calib_matmul_dependent<float>(
    device float* out [[buffer(0)]], constant CalibParams& p [[buffer(1)]]);
template [[host_name("calib_matmul_f16_independent")]] kernel void
calib_matmul_independent<half>(device half* out [[buffer(0)]],
                               constant CalibParams& p [[buffer(1)]]);
template [[host_name("calib_matmul_f32_independent")]] kernel void
calib_matmul_independent<float>(device float* out [[buffer(0)]],
                                constant CalibParams& p [[buffer(1)]]);
