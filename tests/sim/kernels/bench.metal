// Kernels for tests/benchmark: barrier and matrix loops.
#include <metal_stdlib>
using namespace metal;

// `iterations` threadgroup barriers in a row.
kernel void bench_barriers(constant uint& iterations [[buffer(0)]],
                           device uint* out [[buffer(1)]],
                           uint tid [[thread_index_in_threadgroup]]) {
  for (uint i = 0; i < iterations; ++i) {
    threadgroup_barrier(mem_flags::mem_none);
  }
  if (tid == 0) {
    out[0] = iterations;
  }
}

// `iterations` simdgroup multiply-accumulates on one accumulator.
kernel void bench_mma(constant uint& iterations [[buffer(0)]],
                      device const half* a [[buffer(1)]],
                      device float* c [[buffer(2)]]) {
  simdgroup_half8x8 ma;
  simdgroup_load(ma, a, 8);
  simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  for (uint i = 0; i < iterations; ++i) {
    simdgroup_multiply_accumulate(acc, ma, ma, acc);
  }
  simdgroup_store(acc, c, 8);
}

// `iterations` steps of the fused GEMM's inner loop on one simdgroup: lanes 0-7 stage one
// column each of an 8x8 block in threadgroup memory between two simdgroup barriers, the
// simdgroup loads it and multiplies.
kernel void bench_simd_barriers(constant uint& iterations [[buffer(0)]],
                                device float* c [[buffer(1)]],
                                uint lane [[thread_index_in_simdgroup]]) {
  threadgroup half stage[64];
  simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  for (uint i = 0; i < iterations; ++i) {
    if (lane < 8) {
      for (uint j = 0; j < 8; ++j) {
        stage[j * 8 + lane] = half(j + i);
      }
    }
    simdgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_half8x8 b;
    simdgroup_load(b, stage, 8);
    simdgroup_multiply_accumulate(acc, b, b, acc);
    simdgroup_barrier(mem_flags::mem_threadgroup);
  }
  simdgroup_store(acc, c, 8);
}
