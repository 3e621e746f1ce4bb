// Matrix multiplies, fills and copies that lanes pass without waiting: reached after
// divergent code, by some lanes only, or by lanes that disagree.
#include <metal_stdlib>
using namespace metal;

// Lanes 0-7 shuffle inside an if; then every lane reaches one multiply-accumulate, which must
// run once: d = a * b + c. shuffled[lane] = v of lane ^ 1 for lanes 0-7, -1 for the others.
kernel void test_matrix_after_divergent_shuffle(device const half* a [[buffer(0)]],
                                                device const float* c [[buffer(1)]],
                                                device float* d [[buffer(2)]],
                                                device int* shuffled [[buffer(3)]],
                                                uint lane [[thread_index_in_simdgroup]]) {
  simdgroup_half8x8 ma;
  simdgroup_float8x8 mc;
  simdgroup_load(ma, a, 8);
  simdgroup_load(mc, c, 8);
  int r = -1;
  if (lane < 8) {
    r = simd_shuffle(int(lane) * 10, lane ^ 1);
  }
  simdgroup_multiply_accumulate(mc, ma, ma, mc);
  simdgroup_store(mc, d, 8);
  shuffled[lane] = r;
}

// Only lanes 0-15 reach the multiply-accumulate: it runs once, with their mask.
kernel void test_matrix_partial_lanes(device const half* a [[buffer(0)]],
                                      device float* d [[buffer(1)]],
                                      uint lane [[thread_index_in_simdgroup]]) {
  simdgroup_half8x8 ma;
  simdgroup_load(ma, a, 8);
  simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(1.0f);
  if (lane < 16) {
    simdgroup_multiply_accumulate(acc, ma, ma, acc);
  }
  simdgroup_store(acc, d, 8);
}

// The two halves of the simdgroup reach different matrix operations: divergence.
kernel void test_matrix_divergent_ops(device const half* a [[buffer(0)]],
                                      device float* d [[buffer(1)]],
                                      uint lane [[thread_index_in_simdgroup]]) {
  simdgroup_half8x8 ma;
  simdgroup_load(ma, a, 8);
  simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  if (lane < 16) {
    simdgroup_multiply_accumulate(acc, ma, ma, acc);
  } else {
    simdgroup_multiply(acc, ma, ma);
  }
  simdgroup_store(acc, d, 8);
}

// Lanes 0-3 load from device memory before each of two multiply-accumulates: the loads
// keep their place before the multiply that follows them in the trace.
kernel void test_matrix_segments(device const half* a [[buffer(0)]],
                                 device const float* x [[buffer(1)]],
                                 device float* d [[buffer(2)]],
                                 device float* sums [[buffer(3)]],
                                 uint lane [[thread_index_in_simdgroup]]) {
  simdgroup_half8x8 ma;
  simdgroup_load(ma, a, 8);
  simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  float v = 0.0f;
  for (uint i = 0; i < 2; ++i) {
    if (lane < 4) {
      v += x[i * 4 + lane];
    }
    simdgroup_multiply_accumulate(acc, ma, ma, acc);
  }
  simdgroup_store(acc, d, 8);
  sums[lane] = v;
}
