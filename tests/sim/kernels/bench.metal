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
