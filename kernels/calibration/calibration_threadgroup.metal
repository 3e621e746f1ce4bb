// Calibration microbenchmarks: threadgroup-memory bandwidth and bank conflicts, and the cost
// of a threadgroup barrier.
//
// calib_tg_load_strideS (S = 1, 2, 32): lane i of every simdgroup reads 4-byte word i*S + k
// for k = 0..31, 32 loads in a row per repetition, then sums them. Time reps = R1 and R2.
// Bandwidth: launch one threadgroup of 1024 threads (32 simdgroups on one core, all sharing
// its threadgroup-memory pipe); cycles per simdgroup access
//   busy(1) = (T2 - T1) / ((R2 - R1) * 32 * 32),
// and 128 bytes / busy(1) is the bandwidth in bytes per core cycle (when the data path, not
// the banks, is the limit). Conflicts: launch one simdgroup (32 threads); stride 2 puts two
// lanes in every other bank (2-way), stride 32 all 32 lanes in one bank (32-way), and
//   penalty(S) = ((T2 - T1)(S) - (T2 - T1)(1)) / ((R2 - R1) * 32)
// cycles per access: the cost outside the loads is the same for every stride and cancels.
//
// calib_threadgroup_barrier: 64 barriers per repetition with nothing between them, in a
// threadgroup of 64 threads (two simdgroups). Cost of one barrier:
//   (T2 - T1) / ((R2 - R1) * 64) cycles.
// calib_simdgroup_barrier: the same with simdgroup_barrier, in one simdgroup (32 threads).
#include <metal_stdlib>
#include "calibration_params.h"
using namespace metal;

// Words of the tile: the largest stride times the lanes, plus the 32 words of k.
constant uint kCalibTileWords = 32 * 32 + 32;

template <uint S>
kernel void calib_tg_load(device float* out [[buffer(0)]],
                          constant CalibParams& p [[buffer(1)]],
                          uint tid [[thread_index_in_threadgroup]],
                          uint lane [[thread_index_in_simdgroup]],
                          uint threads [[threads_per_threadgroup]]) {
  threadgroup float tile[kCalibTileWords];
  for (uint i = tid; i < kCalibTileWords; i += threads) {
    tile[i] = p.seed;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  threadgroup const float* q = tile + lane * S;
  float acc = 0.0f;
  for (uint r = 0; r < p.reps; ++r) {
    const float v0 = q[0], v1 = q[1], v2 = q[2], v3 = q[3], v4 = q[4], v5 = q[5];
    const float v6 = q[6], v7 = q[7], v8 = q[8], v9 = q[9], v10 = q[10], v11 = q[11];
    const float v12 = q[12], v13 = q[13], v14 = q[14], v15 = q[15], v16 = q[16];
    const float v17 = q[17], v18 = q[18], v19 = q[19], v20 = q[20], v21 = q[21];
    const float v22 = q[22], v23 = q[23], v24 = q[24], v25 = q[25], v26 = q[26];
    const float v27 = q[27], v28 = q[28], v29 = q[29], v30 = q[30], v31 = q[31];
    acc += ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7)) + ((v8 + v9) + (v10 + v11)) +
           ((v12 + v13) + (v14 + v15)) + ((v16 + v17) + (v18 + v19)) +
           ((v20 + v21) + (v22 + v23)) + ((v24 + v25) + (v26 + v27)) +
           ((v28 + v29) + (v30 + v31));
  }
  if (acc == p.sentinel) out[tid] = acc;
}

template [[host_name("calib_tg_load_stride1")]] kernel void calib_tg_load<1>(
    device float* out [[buffer(0)]], constant CalibParams& p [[buffer(1)]],
    uint tid [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]],
    uint threads [[threads_per_threadgroup]]);
template [[host_name("calib_tg_load_stride2")]] kernel void calib_tg_load<2>(
    device float* out [[buffer(0)]], constant CalibParams& p [[buffer(1)]],
    uint tid [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]],
    uint threads [[threads_per_threadgroup]]);
template [[host_name("calib_tg_load_stride32")]] kernel void calib_tg_load<32>(
    device float* out [[buffer(0)]], constant CalibParams& p [[buffer(1)]],
    uint tid [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]],
    uint threads [[threads_per_threadgroup]]);

kernel void calib_threadgroup_barrier(device uint* out [[buffer(0)]],
                                      constant CalibParams& p [[buffer(1)]],
                                      uint tid [[thread_index_in_threadgroup]]) {
  uint r = 0;
  for (; r < p.reps; ++r) {
    CALIB_REP64(threadgroup_barrier(mem_flags::mem_threadgroup);)
  }
  if (r == as_type<uint>(p.sentinel)) out[tid] = r;
}

kernel void calib_simdgroup_barrier(device uint* out [[buffer(0)]],
                                    constant CalibParams& p [[buffer(1)]],
                                    uint tid [[thread_index_in_threadgroup]]) {
  uint r = 0;
  for (; r < p.reps; ++r) {
    CALIB_REP64(simdgroup_barrier(mem_flags::mem_threadgroup);)
  }
  if (r == as_type<uint>(p.sentinel)) out[tid] = r;
}
