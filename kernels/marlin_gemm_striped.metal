// Stripe-partitioned GEMM with K-parallel slices, and its two helper dispatches.
//
// marlin_gemm_fp4_striped: a 1D launch of params.num_threadgroups threadgroups. The work
// units (tile, K slice) are linearized column-major over the tile grid with the K slice
// fastest: unit u is slice u % P of tile u / P, and tile t is row t % m_tiles, column
// t / m_tiles. Threadgroup g takes the contiguous units [g * per, min((g + 1) * per, total)),
// per = ceil(total / num_threadgroups). Each unit runs the fused-dequant tile loop over its
// K range: slice s covers K tiles [s * spt, (s + 1) * spt), spt = ceil(ceil(K / TK) / P).
// With P = 1 the tile is written to C; with P > 1 slice s writes its FP32 partial tile to
// workspace[s][M][N], and marlin_reduce_partials sums the P slices into C in a second
// dispatch. marlin_zero_reduction clears the workspace first, so slices that own no K tiles
// (P larger than the K tiles) contribute zeros.
//
// Buffers: 0 A (half), 1 packed E2M1 codes (uint), 2 scales (half), 3 C (half),
// 4 workspace (float, P * M * N), 5 GemmParams.
#include <metal_stdlib>

#include "common/params.h"
#include "common/simdgroup_tile.h"
using namespace metal;

template <uint TM, uint TN, uint TK, uint SG_ROWS, uint SG_COLS>
kernel void marlin_gemm_fp4_striped(device const half* a [[buffer(0)]],
                                    device const uint* codes [[buffer(1)]],
                                    device const half* scales [[buffer(2)]],
                                    device half* c [[buffer(3)]],
                                    device float* workspace [[buffer(4)]],
                                    constant GemmParams& p [[buffer(5)]],
                                    uint tg [[threadgroup_position_in_grid]],
                                    uint tid [[thread_index_in_threadgroup]],
                                    uint sg [[simdgroup_index_in_threadgroup]],
                                    uint lane [[thread_index_in_simdgroup]]) {
  typedef SimdgroupGrid<TM, TN, SG_ROWS, SG_COLS> Grid;
  static_assert(TM * TK >= Grid::kSimdgroups * 128, "the A tile doubles as the output staging");
  threadgroup half a_tile[TM * TK];
  threadgroup half b_stage[SG_ROWS * SG_COLS * 64];

  const uint m_tiles = (p.m + TM - 1) / TM;
  const uint n_tiles = (p.n + TN - 1) / TN;
  const uint slices = p.k_parallel;
  const uint total = m_tiles * n_tiles * slices;
  const uint per = (total + p.num_threadgroups - 1) / p.num_threadgroups;
  const uint begin = min(tg * per, total);
  const uint end = min(begin + per, total);
  const uint k_tiles = (p.k + TK - 1) / TK;
  const uint slice_tiles = (k_tiles + slices - 1) / slices;
  threadgroup float* out_stage = reinterpret_cast<threadgroup float*>(a_tile) + sg * 64;

  for (uint unit = begin; unit < end; ++unit) {
    const uint tile = unit / slices;
    const uint slice = unit % slices;
    const uint row0 = (tile % m_tiles) * TM;
    const uint col0 = (tile / m_tiles) * TN;
    const uint k_begin = min(slice * slice_tiles, k_tiles) * TK;
    const uint k_end = min((slice + 1) * slice_tiles, k_tiles) * TK;

    simdgroup_matrix<float, 8, 8> acc[Grid::kFragsM][Grid::kFragsN];
    clear_accumulators(acc);
    fused_mainloop<TM, TN, TK, SG_ROWS, SG_COLS, kFormatFp4>(
        a, codes, scales, codes, p, row0, col0, k_begin, k_end, a_tile, b_stage + sg * 64, tid,
        sg, lane, acc);
    if (slices == 1) {
      store_block<TM, TN, SG_ROWS, SG_COLS, half>(acc, out_stage, c, p.m, p.n, row0, col0, sg,
                                                  lane);
    } else {
      store_block<TM, TN, SG_ROWS, SG_COLS, float>(acc, out_stage, workspace + slice * p.m * p.n,
                                                   p.m, p.n, row0, col0, sg, lane);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
}

template [[host_name("marlin_gemm_fp4_striped_64x64x32")]] kernel void marlin_gemm_fp4_striped<64, 64, 32, 2, 2>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device half* c [[buffer(3)]],
    device float* workspace [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fp4_striped_128x64x16")]] kernel void marlin_gemm_fp4_striped<128, 64, 16, 2, 2>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device half* c [[buffer(3)]],
    device float* workspace [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fp4_striped_32x128x32")]] kernel void marlin_gemm_fp4_striped<32, 128, 32, 1, 4>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device half* c [[buffer(3)]],
    device float* workspace [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fp4_striped_128x128x16")]] kernel void marlin_gemm_fp4_striped<128, 128, 16, 2, 2>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device half* c [[buffer(3)]],
    device float* workspace [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fp4_striped_64x64x64")]] kernel void marlin_gemm_fp4_striped<64, 64, 64, 2, 2>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device half* c [[buffer(3)]],
    device float* workspace [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);

// workspace[i] = 0 for i < params.m * params.n * params.k_parallel; 1D grid, one per thread.
kernel void marlin_zero_reduction(device float* workspace [[buffer(0)]],
                                  constant GemmParams& p [[buffer(1)]],
                                  uint gid [[thread_position_in_grid]]) {
  if (gid < p.m * p.n * p.k_parallel) {
    workspace[gid] = 0.0f;
  }
}

// C[i] = sum over s of workspace[s][i] for i < M * N; 1D grid, one output per thread.
kernel void marlin_reduce_partials(device const float* workspace [[buffer(0)]],
                                   device half* c [[buffer(1)]],
                                   constant GemmParams& p [[buffer(2)]],
                                   uint gid [[thread_position_in_grid]]) {
  const uint count = p.m * p.n;
  if (gid >= count) {
    return;
  }
  float sum = 0.0f;
  for (uint s = 0; s < p.k_parallel; ++s) {
    sum += workspace[s * count + gid];
  }
  c[gid] = half(sum);
}
