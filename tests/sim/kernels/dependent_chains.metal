// Dependent chains of counted instructions (tests/sim/dependent_chain_test.cpp): each kernel's
// longest same-kind chain per ALU segment is worked out by hand in the test.
#include <metal_stdlib>
using namespace metal;

struct ChainParams {
  uint n;  // loop trip count
  float seed;
};

// One chain: every FMA consumes the previous one's result.
kernel void test_chain_fma_dependent(device float* out [[buffer(0)]],
                                     constant ChainParams& p [[buffer(1)]],
                                     uint gid [[thread_position_in_grid]]) {
  float x = p.seed;
  for (uint i = 0; i < p.n; ++i) {
    x = fma(x, 0.5f, 1.0f);
  }
  out[gid] = x;
}

// Four interleaved chains of n FMAs each.
kernel void test_chain_fma_four(device float* out [[buffer(0)]],
                                constant ChainParams& p [[buffer(1)]],
                                uint gid [[thread_position_in_grid]]) {
  float x0 = p.seed, x1 = p.seed, x2 = p.seed, x3 = p.seed;
  for (uint i = 0; i < p.n; ++i) {
    x0 = fma(x0, 0.5f, 1.0f);
    x1 = fma(x1, 0.5f, 2.0f);
    x2 = fma(x2, 0.5f, 3.0f);
    x3 = fma(x3, 0.5f, 4.0f);
  }
  out[gid] = x0 + x1 + x2 + x3;
}

// Multiplies and adds alternate: no instruction consumes one of its own kind.
kernel void test_chain_alternating(device float* out [[buffer(0)]],
                                   constant ChainParams& p [[buffer(1)]],
                                   uint gid [[thread_position_in_grid]]) {
  float x = p.seed;
  for (uint i = 0; i < p.n; ++i) {
    x = x * 0.5f + 1.0f;
  }
  out[gid] = x;
}

// A store in every iteration ends the ALU segment: each segment's add extends no chain.
kernel void test_chain_across_stores(device uint* out [[buffer(0)]],
                                     constant ChainParams& p [[buffer(1)]],
                                     uint gid [[thread_position_in_grid]]) {
  uint x = gid;
  for (uint i = 0; i < p.n; ++i) {
    x = x + 3u;
    out[gid] = x;
  }
}

// Collectives that consume collectives: the second shuffle and the add wait for the first
// shuffle and the sum; the shuffle of gid waits for nothing.
kernel void test_chain_collectives(device uint* out [[buffer(0)]],
                                   uint gid [[thread_position_in_grid]]) {
  const uint a = simd_shuffle_xor(gid, 1u);
  const uint b = simd_shuffle_xor(a, 2u);
  const uint c = simd_sum(b) + 1u;
  const uint d = simd_shuffle_xor(gid, 4u);
  out[gid] = c + d;
}
