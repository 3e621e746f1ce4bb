// Simdgroup collectives in divergent control flow: each runs with the lanes that took the
// branch (Metal's active lanes). Each kernel writes its results per thread.
#include <metal_stdlib>
using namespace metal;

// if/else with a reduction on both sides: every third lane sums v, the others v + 100.
kernel void test_divergent_if_else(device const int* in [[buffer(0)]],
                                   device int* out [[buffer(1)]],
                                   uint gid [[thread_position_in_grid]],
                                   uint lane [[thread_index_in_simdgroup]]) {
  const int v = in[gid];
  int r = 0;
  if (lane % 3 == 0) {
    r = simd_sum(v);
  } else {
    r = simd_sum(v + 100);
  }
  out[gid] = r;
}

// A reduction inside an if, then one after the branch reconverged: out[2g] is the sum over
// the lanes with lane % 4 == 1 (-1 for the others), out[2g + 1] the sum over all lanes.
kernel void test_divergent_reconverge(device const int* in [[buffer(0)]],
                                      device int* out [[buffer(1)]],
                                      uint gid [[thread_position_in_grid]],
                                      uint lane [[thread_index_in_simdgroup]]) {
  const int v = in[gid];
  int inside = -1;
  if (lane % 4 == 1) {
    inside = simd_sum(v);
  }
  const int after = simd_sum(v);
  out[2 * gid] = inside;
  out[2 * gid + 1] = after;
}

// The first 16 lanes of simdgroup 0 reduce while every other thread already waits at the
// threadgroup barrier; all threads then read the result.
kernel void test_divergent_before_barrier(device const int* in [[buffer(0)]],
                                          device int* out [[buffer(1)]],
                                          uint tid [[thread_index_in_threadgroup]],
                                          uint lane [[thread_index_in_simdgroup]],
                                          uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup int total[1];
  if (sg == 0 && lane < 16) {
    const int s = simd_sum(in[tid]);
    if (lane == 0) {
      total[0] = s;
    }
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = total[0];
}

// Nested branches: a = sum over lanes < 20, b = max over the even ones among them, c = min
// over lanes < 20, d = sum over lanes >= 20 (-1 where a lane does not compute the value).
kernel void test_divergent_nested(device const int* in [[buffer(0)]],
                                  device int* out [[buffer(1)]],
                                  uint gid [[thread_position_in_grid]],
                                  uint lane [[thread_index_in_simdgroup]]) {
  const int v = in[gid];
  int a = -1;
  int b = -1;
  int c = -1;
  int d = -1;
  if (lane < 20) {
    a = simd_sum(v);
    if (lane % 2 == 0) {
      b = simd_max(v);
    }
    c = simd_min(v);
  } else {
    d = simd_sum(v);
  }
  device int* o = out + 4 * gid;
  o[0] = a;
  o[1] = b;
  o[2] = c;
  o[3] = d;
}

// Votes among lanes >= 8: the ballot's bits, simd_all, simd_any and the vote's all().
kernel void test_divergent_votes(device const int* in [[buffer(0)]],
                                 device uint* out [[buffer(1)]],
                                 uint gid [[thread_position_in_grid]],
                                 uint lane [[thread_index_in_simdgroup]]) {
  const int v = in[gid];
  uint bits = 0xFFFFFFFFu;
  uint all_positive = 2;
  uint any_very_negative = 2;
  uint vote_all = 2;
  if (lane >= 8) {
    const simd_vote vote = simd_ballot(v > 0);
    bits = uint(static_cast<ulong>(vote));
    all_positive = simd_all(v > 0) ? 1u : 0u;
    any_very_negative = simd_any(v < -50) ? 1u : 0u;
    vote_all = vote.all() ? 1u : 0u;
  }
  device uint* o = out + 4 * gid;
  o[0] = bits;
  o[1] = all_positive;
  o[2] = any_very_negative;
  o[3] = vote_all;
}

// Shuffles among lanes < 16: from lane + 16 (inactive) and from lane ^ 1 (active).
kernel void test_divergent_shuffle(device const float* in [[buffer(0)]],
                                   device float* out [[buffer(1)]],
                                   uint gid [[thread_position_in_grid]],
                                   uint lane [[thread_index_in_simdgroup]]) {
  const float v = in[gid];
  float from_inactive = -1.0f;
  float from_active = -1.0f;
  if (lane < 16) {
    from_inactive = simd_shuffle(v, ushort(lane + 16));
    from_active = simd_shuffle_xor(v, ushort(1));
  }
  out[2 * gid] = from_inactive;
  out[2 * gid + 1] = from_active;
}

// A loop whose trip count differs per lane: iteration i runs with the lanes still looping,
// and each adds the number of active lanes.
kernel void test_divergent_loop(device int* out [[buffer(0)]],
                                uint gid [[thread_position_in_grid]],
                                uint lane [[thread_index_in_simdgroup]]) {
  int acc = 0;
  for (uint i = 0; i < lane % 4 + 1; ++i) {
    acc += simd_sum(1);
  }
  out[gid] = acc;
}
