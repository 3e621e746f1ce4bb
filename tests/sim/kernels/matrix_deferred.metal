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

// Every lane writes two elements of an 8x8 tile, all lanes load it as a matrix, then every
// lane overwrites its elements. Lanes do not wait at the load, yet it reads the tile as it is
// when the whole simdgroup arrived: every lane's first writes, none of the overwrites. The
// load separates the writes for the race sanitizer, as a collective does. after[i] is the
// tile once the simdgroup barrier that follows made the overwrites visible.
kernel void test_matrix_load_between_writes(device const half* values [[buffer(0)]],
                                            device half* loaded [[buffer(1)]],
                                            device half* after [[buffer(2)]],
                                            uint lane [[thread_index_in_simdgroup]]) {
  threadgroup half tile[64];
  tile[lane] = values[lane];
  tile[32 + lane] = values[32 + lane];
  simdgroup_half8x8 m;
  simdgroup_load(m, tile, 8);
  tile[lane] = half(-1.0h);
  tile[32 + lane] = half(-2.0h);
  simdgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_store(m, loaded, 8);
  after[lane] = tile[lane];
  after[32 + lane] = tile[32 + lane];
}

// Four loads in a row, then one device store per lane: lanes pass the loads without waiting
// (the store waits once for all four) and the loads keep their place in the trace.
// d = m0 * m1 + m2 * m3, mi the i-th 8x8 block of a; marks[lane] = lane.
kernel void test_matrix_loads_in_a_row(device const half* a [[buffer(0)]],
                                       device float* d [[buffer(1)]],
                                       device int* marks [[buffer(2)]],
                                       uint lane [[thread_index_in_simdgroup]]) {
  simdgroup_half8x8 m0;
  simdgroup_half8x8 m1;
  simdgroup_half8x8 m2;
  simdgroup_half8x8 m3;
  simdgroup_load(m0, a, 8);
  simdgroup_load(m1, a + 64, 8);
  simdgroup_load(m2, a + 128, 8);
  simdgroup_load(m3, a + 192, 8);
  marks[lane] = int(lane);
  simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  simdgroup_multiply_accumulate(acc, m0, m1, acc);
  simdgroup_multiply_accumulate(acc, m2, m3, acc);
  simdgroup_store(acc, d, 8);
}

// Lanes 0-15 and 16-31 load from different addresses at the same call: divergence.
kernel void test_matrix_load_divergent_operands(device const half* a [[buffer(0)]],
                                                device half* d [[buffer(1)]],
                                                uint lane [[thread_index_in_simdgroup]]) {
  simdgroup_half8x8 m;
  simdgroup_load(m, a + (lane < 16 ? 0 : 64), 8);
  simdgroup_store(m, d, 8);
}

// Simdgroup 1 overwrites the tile that simdgroup 0 loads, with no barrier between: a race,
// found although simdgroup 0's lanes went past the load before simdgroup 1 wrote.
kernel void test_matrix_load_race(device const half* values [[buffer(0)]],
                                  device half* d [[buffer(1)]],
                                  uint tid [[thread_index_in_threadgroup]],
                                  uint sg [[simdgroup_index_in_threadgroup]],
                                  uint lane [[thread_index_in_simdgroup]]) {
  threadgroup half tile[64];
  tile[tid] = values[tid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (sg == 0) {
    simdgroup_half8x8 m;
    simdgroup_load(m, tile, 8);
    simdgroup_store(m, d, 8);
  } else {
    tile[lane] = half(0.0h);
  }
}
