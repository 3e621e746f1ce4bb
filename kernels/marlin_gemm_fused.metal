// marlin_gemm_fused_fp4 / marlin_gemm_fused_u4: C[M,N] = A[M,K] x dequant(W)[K,N] with the
// weights dequantized in registers. Each simdgroup stages one 8x8 block of dequantized B in
// its own 128 bytes of threadgroup memory (lanes 0-7 each dequantize one packed word = 8 K
// values of one column) and synchronizes with simdgroup_barrier only; A is shared through one
// threadgroup tile. Threadgroup memory: TM*TK*2 + simdgroups*128 bytes, the analysis's fused
// budget. Accumulation is FP32 (simdgroup_matrix<float>); C is written as FP16.
//
// Grid: (ceil(N/TN), ceil(M/TM)) threadgroups of SG_ROWS*SG_COLS*32 threads.
// Buffers: 0 A (half), 1 packed codes (uint), 2 scales (half), 3 zero points (uint; u4zp only,
// unused otherwise), 4 C (half), 5 GemmParams.
#include <metal_stdlib>

#include "common/params.h"
#include "common/simdgroup_tile.h"
using namespace metal;

template <uint TM, uint TN, uint TK, uint SG_ROWS, uint SG_COLS, uint FORMAT>
kernel void marlin_gemm_fused(device const half* a [[buffer(0)]],
                              device const uint* codes [[buffer(1)]],
                              device const half* scales [[buffer(2)]],
                              device const uint* zeros [[buffer(3)]],
                              device half* c [[buffer(4)]],
                              constant GemmParams& p [[buffer(5)]],
                              uint2 tg [[threadgroup_position_in_grid]],
                              uint tid [[thread_index_in_threadgroup]],
                              uint sg [[simdgroup_index_in_threadgroup]],
                              uint lane [[thread_index_in_simdgroup]]) {
  typedef SimdgroupGrid<TM, TN, SG_ROWS, SG_COLS> Grid;
  static_assert(TM * TK >= Grid::kSimdgroups * 128, "the A tile doubles as the output staging");
  threadgroup half a_tile[TM * TK];
  threadgroup half b_stage[SG_ROWS * SG_COLS * 64];

  const uint row0 = tg.y * TM;
  const uint col0 = tg.x * TN;
  simdgroup_matrix<float, 8, 8> acc[Grid::kFragsM][Grid::kFragsN];
  clear_accumulators(acc);
  fused_mainloop<TM, TN, TK, SG_ROWS, SG_COLS, FORMAT>(a, codes, scales, zeros, p, row0, col0, 0,
                                                       p.k, a_tile, b_stage + sg * 64, tid, sg,
                                                       lane, acc);
  // The A tile is free now: each simdgroup stages its accumulators in its own 64 floats of it.
  store_block<TM, TN, SG_ROWS, SG_COLS, half>(
      acc, reinterpret_cast<threadgroup float*>(a_tile) + sg * 64, c, p.m, p.n, row0, col0, sg,
      lane);
}

// Tile configurations: TM x TN x TK with the default simdgroup grid (docs/kernels.md).
template [[host_name("marlin_gemm_fused_fp4_64x64x32")]] kernel void marlin_gemm_fused<64, 64, 32, 2, 2, kFormatFp4>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_fp4_128x64x16")]] kernel void marlin_gemm_fused<128, 64, 16, 2, 2, kFormatFp4>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_fp4_32x128x32")]] kernel void marlin_gemm_fused<32, 128, 32, 1, 4, kFormatFp4>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_fp4_128x128x16")]] kernel void marlin_gemm_fused<128, 128, 16, 2, 2, kFormatFp4>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_fp4_64x64x64")]] kernel void marlin_gemm_fused<64, 64, 64, 2, 2, kFormatFp4>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_u4_64x64x32")]] kernel void marlin_gemm_fused<64, 64, 32, 2, 2, kFormatU4B8>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_u4_128x64x16")]] kernel void marlin_gemm_fused<128, 64, 16, 2, 2, kFormatU4B8>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_u4_32x128x32")]] kernel void marlin_gemm_fused<32, 128, 32, 1, 4, kFormatU4B8>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_u4_128x128x16")]] kernel void marlin_gemm_fused<128, 128, 16, 2, 2, kFormatU4B8>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_u4_64x64x64")]] kernel void marlin_gemm_fused<64, 64, 64, 2, 2, kFormatU4B8>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_u4zp_64x64x32")]] kernel void marlin_gemm_fused<64, 64, 32, 2, 2, kFormatU4Zp>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_u4zp_128x64x16")]] kernel void marlin_gemm_fused<128, 64, 16, 2, 2, kFormatU4Zp>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_u4zp_32x128x32")]] kernel void marlin_gemm_fused<32, 128, 32, 1, 4, kFormatU4Zp>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_u4zp_128x128x16")]] kernel void marlin_gemm_fused<128, 128, 16, 2, 2, kFormatU4Zp>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
template [[host_name("marlin_gemm_fused_u4zp_64x64x64")]] kernel void marlin_gemm_fused<64, 64, 64, 2, 2, kFormatU4Zp>(
    device const half* a [[buffer(0)]],
    device const uint* codes [[buffer(1)]],
    device const half* scales [[buffer(2)]],
    device const uint* zeros [[buffer(3)]],
    device half* c [[buffer(4)]],
    constant GemmParams& p [[buffer(5)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]]);
