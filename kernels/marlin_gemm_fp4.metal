// marlin_gemm_fp4: C[M,N] = A[M,K] x dequant(W)[K,N], double-buffered, with B dequantized
// into threadgroup memory. While the simdgroups multiply tiles of buffer t % 2, all threads
// load A and dequantize B for step t + 1 into the other buffer; one threadgroup barrier per
// main-loop step separates the two.
//
// Rows of both tiles are padded by 8 halves (16 bytes): an unpadded B row of 64 halves is 32
// words, so the 8 rows a simdgroup_load reads would all start in the same bank. Threadgroup
// memory: 2 * (TM * (TK + 8) + TK * (TN + 8)) * 2 bytes; 64x64x64 needs 36,864 B and is
// refused (the limit is 32,768 B), which the unpadded analysis form (32,768 B) hides.
//
// Grid: (ceil(N/TN), ceil(M/TM)) threadgroups of SG_ROWS*SG_COLS*32 threads.
// Buffers: 0 A (half), 1 packed E2M1 codes (uint), 2 scales (half), 3 C (half), 4 GemmParams.
#include <metal_stdlib>

#include "common/params.h"
#include "common/simdgroup_tile.h"
using namespace metal;

constant constexpr uint kRowPad = 8;

// Dequantizes W[k0 .. k0+TK)[col0 .. col0+TN) into `tile` (row stride STRIDE halves): one
// packed word (8 K values of one column) per thread and step, consecutive threads on
// consecutive columns so their device loads coalesce.
template <uint TN, uint TK, uint STRIDE, uint THREADS>
inline void load_b_tile(device const uint* codes, device const half* scales,
                        constant GemmParams& p, uint k0, uint col0, threadgroup half* tile,
                        uint tid) {
  for (uint i = tid; i < (TK / 8) * TN; i += THREADS) {
    const uint kw = i / TN;
    const uint col = i % TN;
    half w[8];
    load_weight_word<kFormatFp4>(codes, scales, codes, p, k0 + kw * 8, col0 + col, w);
#pragma clang loop unroll(full)
    for (uint j = 0; j < 8; ++j) {
      tile[(kw * 8 + j) * STRIDE + col] = w[j];
    }
  }
}

template <uint TM, uint TN, uint TK, uint SG_ROWS, uint SG_COLS>
kernel void marlin_gemm_fp4(device const half* a [[buffer(0)]],
                            device const uint* codes [[buffer(1)]],
                            device const half* scales [[buffer(2)]],
                            device half* c [[buffer(3)]],
                            constant GemmParams& p [[buffer(4)]],
                            uint2 tg [[threadgroup_position_in_grid]],
                            uint tid [[thread_index_in_threadgroup]],
                            uint sg [[simdgroup_index_in_threadgroup]],
                            uint lane [[thread_index_in_simdgroup]]) {
  typedef SimdgroupGrid<TM, TN, SG_ROWS, SG_COLS> Grid;
  constexpr uint kThreads = Grid::kThreads;
  constexpr uint kAStride = TK + kRowPad;
  constexpr uint kBStride = TN + kRowPad;
  constexpr uint kABuffer = TM * kAStride;
  constexpr uint kBBuffer = TK * kBStride;
  constexpr uint kFragsM = Grid::kFragsM;
  constexpr uint kFragsN = Grid::kFragsN;

  threadgroup half a_tiles[2 * TM * (TK + kRowPad)];
  threadgroup half b_tiles[2 * TK * (TN + kRowPad)];

  const uint row0 = tg.y * TM;
  const uint col0 = tg.x * TN;
  const uint sg_row = (sg / SG_COLS) * Grid::kBlockRows;
  const uint sg_col = (sg % SG_COLS) * Grid::kBlockCols;

  simdgroup_matrix<float, 8, 8> acc[kFragsM][kFragsN];
  clear_accumulators(acc);

  const uint steps = (p.k + TK - 1) / TK;
  load_a_tile<TM, TK, kAStride, kThreads>(a, p, row0, 0, a_tiles, tid);
  load_b_tile<TN, TK, kBStride, kThreads>(codes, scales, p, 0, col0, b_tiles, tid);
  threadgroup_barrier(mem_flags::mem_threadgroup);

  for (uint t = 0; t < steps; ++t) {
    const uint cur = t % 2;
    if (t + 1 < steps) {
      const uint next = 1 - cur;
      load_a_tile<TM, TK, kAStride, kThreads>(a, p, row0, (t + 1) * TK, a_tiles + next * kABuffer,
                                              tid);
      load_b_tile<TN, TK, kBStride, kThreads>(codes, scales, p, (t + 1) * TK, col0,
                                              b_tiles + next * kBBuffer, tid);
    }
    threadgroup const half* a_cur = a_tiles + cur * kABuffer;
    threadgroup const half* b_cur = b_tiles + cur * kBBuffer;
#pragma clang loop unroll(full)
    for (uint kt = 0; kt < TK / 8; ++kt) {
      simdgroup_matrix<half, 8, 8> a_frag[kFragsM];
#pragma clang loop unroll(full)
      for (uint mi = 0; mi < kFragsM; ++mi) {
        simdgroup_load(a_frag[mi], a_cur + (sg_row + mi * 8) * kAStride + kt * 8, kAStride);
      }
#pragma clang loop unroll(full)
      for (uint ni = 0; ni < kFragsN; ++ni) {
        simdgroup_matrix<half, 8, 8> b_frag;
        simdgroup_load(b_frag, b_cur + kt * 8 * kBStride + sg_col + ni * 8, kBStride);
#pragma clang loop unroll(full)
        for (uint mi = 0; mi < kFragsM; ++mi) {
          simdgroup_multiply_accumulate(acc[mi][ni], a_frag[mi], b_frag, acc[mi][ni]);
        }
      }
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }

  store_block<TM, TN, SG_ROWS, SG_COLS, half>(
      acc, reinterpret_cast<threadgroup float*>(a_tiles) + sg * 64, c, p.m, p.n, row0, col0, sg,
      lane);
}

// Tile configurations (docs/kernels.md). 64x64x64 is not instantiated: its 36,864 B of
// threadgroup memory exceed the limit, so Metal's compiler rejects it; the host-side budget
// check refuses it by name.
template [[host_name("marlin_gemm_fp4_64x64x32")]] kernel void marlin_gemm_fp4<64, 64, 32, 2, 2>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fp4_128x64x16")]] kernel void marlin_gemm_fp4<128, 64, 16, 2, 2>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fp4_32x128x32")]] kernel void marlin_gemm_fp4<32, 128, 32, 1, 4>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fp4_128x128x16")]] kernel void marlin_gemm_fp4<128, 128, 16, 2, 2>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
