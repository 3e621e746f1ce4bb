// A 16x16 tiled matmul (threadgroup memory + barriers) and a threadgroup-argument reduction.
#include <metal_stdlib>
using namespace metal;

constant uint kTile = 16;

struct MatmulParams {
  uint m;
  uint n;
  uint k;
};

// C[m x n] = A[m x k] * B[k x n], half inputs, float accumulation, half output. Each thread
// computes one C element; each step loads one element of each tile.
kernel void test_matmul_tiled16(device const half* a [[buffer(0)]],
                                device const half* b [[buffer(1)]],
                                device half* c [[buffer(2)]],
                                constant MatmulParams& p [[buffer(3)]],
                                uint2 tid [[thread_position_in_threadgroup]],
                                uint2 gid [[thread_position_in_grid]]) {
  threadgroup half tile_a[kTile][kTile];
  threadgroup half tile_b[kTile][kTile];
  const uint row = gid.y;
  const uint col = gid.x;
  float acc = 0.0f;
  for (uint t = 0; t < (p.k + kTile - 1) / kTile; ++t) {
    const uint ak = t * kTile + tid.x;
    const uint bk = t * kTile + tid.y;
    tile_a[tid.y][tid.x] = (row < p.m && ak < p.k) ? a[row * p.k + ak] : half(0.0f);
    tile_b[tid.y][tid.x] = (bk < p.k && col < p.n) ? b[bk * p.n + col] : half(0.0f);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint i = 0; i < kTile; ++i) {
      const half x = tile_a[tid.y][i];
      const half y = tile_b[i][tid.x];
      acc = fma(float(x), float(y), acc);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (row < p.m && col < p.n) {
    c[row * p.n + col] = half(acc);
  }
}

// Sums `in` per threadgroup through a [[threadgroup(0)]] scratch array (tree reduction).
kernel void test_tg_arg_reduce(device const uint* in [[buffer(0)]],
                               device uint* out [[buffer(1)]],
                               threadgroup uint* scratch [[threadgroup(0)]],
                               uint tid [[thread_index_in_threadgroup]],
                               uint tg [[threadgroup_position_in_grid]],
                               uint gid [[thread_position_in_grid]],
                               uint threads [[threads_per_threadgroup]]) {
  scratch[tid] = in[gid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint stride = threads / 2; stride > 0; stride /= 2) {
    if (tid < stride) {
      scratch[tid] = scratch[tid] + scratch[tid + stride];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (tid == 0) {
    out[tg] = scratch[0];
  }
}

// A template kernel with a kernel-scope array sized by the template parameter, instantiated
// twice under different host names.
template <uint N>
kernel void test_template_rotate(device float* out [[buffer(0)]],
                                 uint gid [[thread_position_in_grid]],
                                 uint t [[thread_index_in_threadgroup]]) {
  threadgroup float scratch[N];
  scratch[t] = float(N) + float(t);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = scratch[(t + 1) % N];
}
template [[host_name("test_template_rotate_32")]] kernel void test_template_rotate<32>(
    device float* out [[buffer(0)]], uint gid [[thread_position_in_grid]],
    uint t [[thread_index_in_threadgroup]]);
template [[host_name("test_template_rotate_64")]] kernel void test_template_rotate<64>(
    device float* out [[buffer(0)]], uint gid [[thread_position_in_grid]],
    uint t [[thread_index_in_threadgroup]]);
