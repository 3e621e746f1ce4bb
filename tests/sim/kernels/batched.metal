// Kernels of the batch tests (tests/sim/batch_run_test.cpp), built with their batched build.
#include <metal_stdlib>
using namespace metal;

// out[i] = in[i] * 3 when in[i] > 100, else in[i] * 5, for threadgroup i of an 8-wide grid:
// alike traces (one multiply either way), but threadgroups whose data differ branch apart.
kernel void test_batch_branch_on_data(device const uint* in [[buffer(0)]],
                                      device uint* out [[buffer(1)]],
                                      uint2 tg [[threadgroup_position_in_grid]],
                                      uint tid [[thread_index_in_threadgroup]]) {
  const uint i = tg.y * 8 + tg.x;
  const uint v = in[i];
  uint r;
  if (v > 100) {
    r = v * 3;
  } else {
    r = v * 5;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (tid == 0) {
    out[i] = r;
  }
}

// out[i] = in[in[i]] for threadgroup i of an 8-wide grid: an index read from the data, out of
// bounds where the data say so.
kernel void test_batch_gather(device const uint* in [[buffer(0)]],
                              device uint* out [[buffer(1)]],
                              uint2 tg [[threadgroup_position_in_grid]],
                              uint tid [[thread_index_in_threadgroup]]) {
  const uint i = tg.y * 8 + tg.x;
  const uint v = in[in[i]];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (tid == 0) {
    out[i] = v;
  }
}

// out[64 i ..] = the 8x8 block of `in` at element offsets[i], for threadgroup i of an 8-wide
// grid (one simdgroup each): a matrix load out of bounds where the offsets say so.
kernel void test_batch_matrix_gather(device const half* in [[buffer(0)]],
                                     device const uint* offsets [[buffer(1)]],
                                     device half* out [[buffer(2)]],
                                     uint2 tg [[threadgroup_position_in_grid]]) {
  const uint i = tg.y * 8 + tg.x;
  simdgroup_matrix<half, 8, 8> m;
  simdgroup_load(m, in + offsets[i], 8);
  simdgroup_store(m, out + i * 64, 8);
}
