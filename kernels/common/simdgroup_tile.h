// The simdgroup grid over a threadgroup tile, and the fused-dequant main loop shared by the
// 2D fused kernels and the striped kernel.
//
// A TM x TN output tile is split into SG_ROWS x SG_COLS simdgroup blocks; simdgroup sg owns
// block (sg / SG_COLS, sg % SG_COLS) of (TM / SG_ROWS) x (TN / SG_COLS) outputs, held as
// FRAGS_M x FRAGS_N float 8x8 accumulators.
#pragma once

#include <metal_stdlib>

#include "gemm_tile.h"
#include "params.h"
#include "weight_column.h"
using namespace metal;

template <uint TM, uint TN, uint SG_ROWS, uint SG_COLS>
struct SimdgroupGrid {
  static constant constexpr uint kSimdgroups = SG_ROWS * SG_COLS;
  static constant constexpr uint kThreads = kSimdgroups * 32;
  static constant constexpr uint kBlockRows = TM / SG_ROWS;
  static constant constexpr uint kBlockCols = TN / SG_COLS;
  static constant constexpr uint kFragsM = kBlockRows / 8;
  static constant constexpr uint kFragsN = kBlockCols / 8;
};

template <uint FRAGS_M, uint FRAGS_N>
inline void clear_accumulators(thread simdgroup_matrix<float, 8, 8> (&acc)[FRAGS_M][FRAGS_N]) {
#pragma clang loop unroll(full)
  for (uint mi = 0; mi < FRAGS_M; ++mi) {
#pragma clang loop unroll(full)
    for (uint ni = 0; ni < FRAGS_N; ++ni) {
      acc[mi][ni] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    }
  }
}

// acc += A[row0 .. +TM)[k_begin .. k_end) x W[k_begin .. k_end)[col0 .. +TN) for this
// simdgroup's block. A goes through `a_tile` (TM x TK halves, shared by the threadgroup, two
// threadgroup barriers per TK step); each 8x8 block of W is dequantized by lanes 0-7 (one
// packed word each) into `stage` (this simdgroup's 64 halves), fenced by simdgroup barriers.
// k_begin is a multiple of TK; every thread of the threadgroup must call this.
template <uint TM, uint TN, uint TK, uint SG_ROWS, uint SG_COLS, uint FORMAT>
inline void fused_mainloop(
    device const half* a, device const uint* codes, device const half* scales,
    device const uint* zeros, constant GemmParams& p, uint row0, uint col0, uint k_begin,
    uint k_end, threadgroup half* a_tile, threadgroup half* stage, uint tid, uint sg, uint lane,
    thread simdgroup_matrix<float, 8, 8> (&acc)[TM / SG_ROWS / 8][TN / SG_COLS / 8]) {
  typedef SimdgroupGrid<TM, TN, SG_ROWS, SG_COLS> Grid;
  const uint sg_row = (sg / SG_COLS) * Grid::kBlockRows;
  const uint sg_col = (sg % SG_COLS) * Grid::kBlockCols;
  for (uint k0 = k_begin; k0 < k_end; k0 += TK) {
    load_a_tile<TM, TK, TK, Grid::kThreads>(a, p, row0, k0, a_tile, tid);
    threadgroup_barrier(mem_flags::mem_threadgroup);
#pragma clang loop unroll(full)
    for (uint kt = 0; kt < TK / 8; ++kt) {
      simdgroup_matrix<half, 8, 8> a_frag[Grid::kFragsM];
#pragma clang loop unroll(full)
      for (uint mi = 0; mi < Grid::kFragsM; ++mi) {
        simdgroup_load(a_frag[mi], a_tile + (sg_row + mi * 8) * TK + kt * 8, TK);
      }
#pragma clang loop unroll(full)
      for (uint ni = 0; ni < Grid::kFragsN; ++ni) {
        if (lane < 8) {
          half w[8];
          load_weight_word<FORMAT>(codes, scales, zeros, p, k0 + kt * 8,
                                   col0 + sg_col + ni * 8 + lane, w);
#pragma clang loop unroll(full)
          for (uint j = 0; j < 8; ++j) {
            stage[j * 8 + lane] = w[j];
          }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_matrix<half, 8, 8> b_frag;
        simdgroup_load(b_frag, stage, 8);
#pragma clang loop unroll(full)
        for (uint mi = 0; mi < Grid::kFragsM; ++mi) {
          simdgroup_multiply_accumulate(acc[mi][ni], a_frag[mi], b_frag, acc[mi][ni]);
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
      }
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
}

// Writes this simdgroup's block of accumulators to the row-major m x n matrix `out` at tile
// origin (row0, col0), through `stage` (64 floats of threadgroup memory owned by this
// simdgroup), skipping elements outside the matrix.
template <uint TM, uint TN, uint SG_ROWS, uint SG_COLS, typename OUT>
inline void store_block(thread simdgroup_matrix<float, 8, 8> (&acc)[TM / SG_ROWS / 8]
                                                                    [TN / SG_COLS / 8],
                        threadgroup float* stage, device OUT* out, uint m, uint n, uint row0,
                        uint col0, uint sg, uint lane) {
  typedef SimdgroupGrid<TM, TN, SG_ROWS, SG_COLS> Grid;
  const uint sg_row = (sg / SG_COLS) * Grid::kBlockRows;
  const uint sg_col = (sg % SG_COLS) * Grid::kBlockCols;
#pragma clang loop unroll(full)
  for (uint mi = 0; mi < Grid::kFragsM; ++mi) {
#pragma clang loop unroll(full)
    for (uint ni = 0; ni < Grid::kFragsN; ++ni) {
      store_accumulator<OUT>(acc[mi][ni], stage, out, m, n, row0 + sg_row + mi * 8,
                             col0 + sg_col + ni * 8, lane);
    }
  }
}
