// Kernels for simd_barrier_test.cpp: simdgroup barriers in uniform and divergent code.
#include <metal_stdlib>
using namespace metal;

// `rounds` exchanges through threadgroup memory: each lane writes its slot, the simdgroup
// barrier orders the writes before every lane reads another lane's slot, and a second barrier
// orders the reads before the next round's writes.
kernel void test_barrier_rounds(device const int* in [[buffer(0)]],
                                device int* out [[buffer(1)]],
                                constant uint& rounds [[buffer(2)]],
                                uint lane [[thread_index_in_simdgroup]],
                                uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup int slots[64];
  int acc = 0;
  for (uint r = 0; r < rounds; ++r) {
    slots[sg * 32 + lane] = in[sg * 32 + lane] * int(r + 1);
    simdgroup_barrier(mem_flags::mem_threadgroup);
    acc += slots[sg * 32 + (lane + r + 1) % 32];
    simdgroup_barrier(mem_flags::mem_threadgroup);
  }
  out[sg * 32 + lane] = acc;
}

// Lanes 0-15 and 16-31 cross different simdgroup barriers, each ordering its half's writes
// before its reads.
kernel void test_barrier_divergent_branches(device int* out [[buffer(0)]],
                                            uint lane [[thread_index_in_simdgroup]]) {
  threadgroup int slots[32];
  slots[lane] = int(lane) * 5;
  if (lane < 16) {
    simdgroup_barrier(mem_flags::mem_threadgroup);
    out[lane] = slots[15 - lane];
  } else {
    simdgroup_barrier(mem_flags::mem_threadgroup);
    out[lane] = slots[47 - lane];
  }
}

// A barrier in a loop of lane-dependent trip count (1 to 4), then one for every lane.
kernel void test_barrier_divergent_loop(device int* out [[buffer(0)]],
                                        uint lane [[thread_index_in_simdgroup]]) {
  threadgroup int slots[32];
  int acc = 0;
  for (uint i = 0; i <= lane % 4; ++i) {
    simdgroup_barrier(mem_flags::mem_none);
    acc += int(i) + 1;
  }
  slots[lane] = acc;
  simdgroup_barrier(mem_flags::mem_threadgroup);
  out[lane] = slots[31 - lane];
}
