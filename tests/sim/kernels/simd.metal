// Simdgroup collectives: each kernel writes one result per thread.
#include <metal_stdlib>
using namespace metal;

kernel void test_simd_shuffles(device const float* in [[buffer(0)]],
                               device float* out [[buffer(1)]],
                               uint gid [[thread_position_in_grid]],
                               ushort lane [[thread_index_in_simdgroup]]) {
  const float v = in[gid];
  device float* o = out + gid * 5;
  o[0] = simd_shuffle(v, ushort((lane * 7 + 3) % 32));
  o[1] = simd_shuffle_up(v, ushort(3));
  o[2] = simd_shuffle_down(v, ushort(5));
  o[3] = simd_shuffle_xor(v, ushort(6));
  o[4] = simd_broadcast(v, ushort(9));
}

kernel void test_simd_reductions(device const int* in [[buffer(0)]],
                                 device int* out [[buffer(1)]],
                                 device uint* votes [[buffer(2)]],
                                 uint gid [[thread_position_in_grid]]) {
  const int v = in[gid];
  device int* o = out + gid * 3;
  o[0] = simd_sum(v);
  o[1] = simd_min(v);
  o[2] = simd_max(v);
  const uint ballot = uint(static_cast<ulong>(simd_ballot(v > 0)));
  device uint* w = votes + gid * 3;
  w[0] = ballot;
  w[1] = simd_all(v > -1000) ? 1u : 0u;
  w[2] = simd_any(v == 7) ? 1u : 0u;
}

kernel void test_simd_half_vector(device const half2* in [[buffer(0)]],
                                  device half2* out [[buffer(1)]],
                                  uint gid [[thread_position_in_grid]]) {
  const half2 v = in[gid];
  out[gid * 2] = simd_sum(v);
  out[gid * 2 + 1] = simd_shuffle_xor(v, ushort(1));
}

// Early-returning lanes are inactive in later collectives.
kernel void test_simd_partial(device const int* in [[buffer(0)]],
                              device int* out [[buffer(1)]],
                              uint gid [[thread_position_in_grid]],
                              ushort lane [[thread_index_in_simdgroup]]) {
  if (lane >= 20) {
    return;
  }
  out[gid] = simd_sum(in[gid]);
}

kernel void test_simdgroup_barrier(device int* out [[buffer(0)]],
                                   uint lane [[thread_index_in_simdgroup]],
                                   uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup int slots[64];
  slots[sg * 32 + lane] = int(lane * 3 + sg);
  simdgroup_barrier(mem_flags::mem_threadgroup);
  out[sg * 32 + lane] = slots[sg * 32 + (31 - lane)];
}
