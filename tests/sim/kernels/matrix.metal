// simdgroup_matrix loads, stores and multiply-accumulate, from device and threadgroup memory.
#include <metal_stdlib>
using namespace metal;

struct MatrixParams {
  uint stride;    // elements per row of the source and destination
  uint origin_x;  // column of the block's origin
  uint origin_y;  // row of the block's origin
  uint transpose;
};

// Loads an 8x8 half block from device memory, stores it to out (8x8, stride 8, no
// transpose): out = the block as the matrix sees it.
kernel void test_matrix_load_device(device const half* in [[buffer(0)]],
                                    device half* out [[buffer(1)]],
                                    constant MatrixParams& p [[buffer(2)]]) {
  simdgroup_half8x8 m;
  simdgroup_load(m, in, p.stride, ulong2(p.origin_x, p.origin_y), p.transpose != 0);
  simdgroup_store(m, out, 8);
}

// Loads an 8x8 float block (stride 8) and stores it into out with the given stride, origin
// and transpose.
kernel void test_matrix_store_device(device const float* in [[buffer(0)]],
                                     device float* out [[buffer(1)]],
                                     constant MatrixParams& p [[buffer(2)]]) {
  simdgroup_float8x8 m;
  simdgroup_load(m, in, 8);
  simdgroup_store(m, out, p.stride, ulong2(p.origin_x, p.origin_y), p.transpose != 0);
}

// Copies a 16x16 half array into threadgroup memory, loads an 8x8 block from there with
// stride/origin/transpose, stores it to threadgroup memory and copies that out.
kernel void test_matrix_threadgroup(device const half* in [[buffer(0)]],
                                    device half* out [[buffer(1)]],
                                    constant MatrixParams& p [[buffer(2)]],
                                    uint lane [[thread_index_in_simdgroup]]) {
  threadgroup half src[16 * 16];
  threadgroup half dst[8 * 8];
  for (uint i = lane; i < 256; i += 32) {
    src[i] = in[i];
  }
  simdgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_half8x8 m;
  simdgroup_load(m, src, 16, ulong2(p.origin_x, p.origin_y), p.transpose != 0);
  simdgroup_store(m, dst, 8);
  simdgroup_barrier(mem_flags::mem_threadgroup);
  for (uint i = lane; i < 64; i += 32) {
    out[i] = dst[i];
  }
}

// D = A * B + C with A, B half and C, D float, all 8x8 with stride 8; then E = A * B (half
// result) and F = filled(2) * A.
kernel void test_matrix_mma(device const half* a [[buffer(0)]],
                            device const half* b [[buffer(1)]],
                            device const float* c [[buffer(2)]],
                            device float* d [[buffer(3)]],
                            device half* e [[buffer(4)]],
                            device float* f [[buffer(5)]]) {
  simdgroup_half8x8 ma;
  simdgroup_half8x8 mb;
  simdgroup_float8x8 mc;
  simdgroup_load(ma, a, 8);
  simdgroup_load(mb, b, 8);
  simdgroup_load(mc, c, 8);
  simdgroup_float8x8 md;
  simdgroup_multiply_accumulate(md, ma, mb, mc);
  simdgroup_store(md, d, 8);
  simdgroup_half8x8 me;
  simdgroup_multiply(me, ma, mb);
  simdgroup_store(me, e, 8);
  simdgroup_float8x8 two = make_filled_simdgroup_matrix<float, 8, 8>(2.0f);
  simdgroup_float8x8 mf = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  simdgroup_multiply_accumulate(mf, two, ma, mf);
  simdgroup_float8x8 copy = mf;
  simdgroup_store(copy, f, 8);
}

// A 16x16 tile GEMM per threadgroup with 4 simdgroups, each owning one 8x8 block of C:
// C[m x n] = A[m x k] * B[k x n], float accumulation, m, n, k multiples of 16.
struct GemmParams {
  uint m;
  uint n;
  uint k;
};
kernel void test_matrix_gemm(device const half* a [[buffer(0)]],
                             device const half* b [[buffer(1)]],
                             device float* c [[buffer(2)]],
                             constant GemmParams& p [[buffer(3)]],
                             uint2 tg [[threadgroup_position_in_grid]],
                             uint sg [[simdgroup_index_in_threadgroup]],
                             uint tid [[thread_index_in_threadgroup]]) {
  threadgroup half ta[16 * 16];
  threadgroup half tb[16 * 16];
  const uint row0 = tg.y * 16;
  const uint col0 = tg.x * 16;
  const uint sr = (sg / 2) * 8;
  const uint sc = (sg % 2) * 8;
  simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  for (uint k0 = 0; k0 < p.k; k0 += 16) {
    for (uint i = tid; i < 256; i += 128) {
      ta[i] = a[(row0 + i / 16) * p.k + k0 + i % 16];
      tb[i] = b[(k0 + i / 16) * p.n + col0 + i % 16];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint kk = 0; kk < 16; kk += 8) {
      simdgroup_half8x8 ma;
      simdgroup_half8x8 mb;
      simdgroup_load(ma, ta, 16, ulong2(kk, sr));
      simdgroup_load(mb, tb, 16, ulong2(sc, kk));
      simdgroup_multiply_accumulate(acc, ma, mb, acc);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  simdgroup_store(acc, c + (row0 + sr) * p.n + col0 + sc, p.n);
}
