// Phase probes: microbenchmarks that repeat exactly one phase of the Marlin GEMM kernels, to
// time it on the simulated device (or on a Mac) with the calibration's two-launch method
// (docs/calibration.md): per-phase cycles = (T(R2) - T(R1)) / (R2 - R1), each launch one
// threadgroup alone on the device. docs/validation.md ("Phase probes") lists each probe, its
// formula and its measured figures; the host side is tools/cli/phase_probes.cpp.
//
// Each probe calls the kernels/common functions the real kernels call, with the real
// kernels' threadgroup shape (64x64x32 tile, 2x2 simdgroups, 128 threads). Where a phase is
// written inline in a kernel (the separate kernel's B-tile load and compute loop, the fused
// kernel's inner loop), the probe repeats those statements verbatim; the comment names the
// kernel they come from. The data a probe reads stays the same every repetition, so after the
// first one device loads hit the L1: the figures are the phases' best case.
//
// Buffers: 0 A (half, 64 x 32), 1 packed E2M1 codes (uint, 4 x 64), 2 scales (half, 1 x 64),
// 3 out (float; written only when seed == sentinel, i.e. never), 4 GemmParams (m = n = 64,
// k = 32), 5 CalibParams (reps, seed, sentinel).
#include <metal_stdlib>

#include "../calibration/calibration_params.h"
#include "../common/params.h"
#include "../common/simdgroup_tile.h"
using namespace metal;

// The 64x64x32 configuration of the fused and separate kernels.
constant constexpr uint kProbeTM = 64;
constant constexpr uint kProbeTN = 64;
constant constexpr uint kProbeTK = 32;
constant constexpr uint kProbeThreads = 128;
constant constexpr uint kProbeFrags = 4;  // 8x8 fragments per simdgroup block side (32 / 8)
// The separate kernel's padded row strides (marlin_gemm_fp4.metal, kRowPad = 8).
constant constexpr uint kProbeAStride = kProbeTK + 8;
constant constexpr uint kProbeBStride = kProbeTN + 8;

// 64 threadgroup barriers per repetition, 4 simdgroups: cost = dT / (dR * 64).
kernel void probe_threadgroup_barrier(device float* out [[buffer(3)]],
                                      constant CalibParams& q [[buffer(5)]],
                                      uint tid [[thread_index_in_threadgroup]]) {
  uint r = 0;
  for (; r < q.reps; ++r) {
    CALIB_REP64(threadgroup_barrier(mem_flags::mem_threadgroup);)
  }
  if (q.seed == q.sentinel) out[tid] = float(r);
}

// 64 simdgroup barriers per repetition, 4 simdgroups: cost = dT / (dR * 64).
kernel void probe_simdgroup_barrier(device float* out [[buffer(3)]],
                                    constant CalibParams& q [[buffer(5)]],
                                    uint tid [[thread_index_in_threadgroup]]) {
  uint r = 0;
  for (; r < q.reps; ++r) {
    CALIB_REP64(simdgroup_barrier(mem_flags::mem_threadgroup);)
  }
  if (q.seed == q.sentinel) out[tid] = float(r);
}

// The fused kernel's A phase: the cooperative 64x32 A-tile load (fused_mainloop's
// load_a_tile, unpadded) and its threadgroup barrier.
kernel void probe_a_tile_load(device const half* a [[buffer(0)]],
                              device float* out [[buffer(3)]],
                              constant GemmParams& p [[buffer(4)]],
                              constant CalibParams& q [[buffer(5)]],
                              uint tid [[thread_index_in_threadgroup]]) {
  threadgroup half a_tile[kProbeTM * kProbeTK];
  for (uint r = 0; r < q.reps; ++r) {
    load_a_tile<kProbeTM, kProbeTK, kProbeTK, kProbeThreads>(a, p, 0, 0, a_tile, tid);
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (q.seed == q.sentinel) out[tid] = float(a_tile[tid]);
}

// The separate kernel's load phase for the next step: the padded A tile and the B tile
// dequantized into threadgroup memory (marlin_gemm_fp4.metal, load_b_tile), no barrier.
kernel void probe_separate_load(device const half* a [[buffer(0)]],
                                device const uint* codes [[buffer(1)]],
                                device const half* scales [[buffer(2)]],
                                device float* out [[buffer(3)]],
                                constant GemmParams& p [[buffer(4)]],
                                constant CalibParams& q [[buffer(5)]],
                                uint tid [[thread_index_in_threadgroup]]) {
  threadgroup half a_tile[kProbeTM * kProbeAStride];
  threadgroup half b_tile[kProbeTK * kProbeBStride];
  for (uint r = 0; r < q.reps; ++r) {
    load_a_tile<kProbeTM, kProbeTK, kProbeAStride, kProbeThreads>(a, p, 0, 0, a_tile, tid);
    // marlin_gemm_fp4.metal, load_b_tile<TN, TK, kBStride, kThreads>.
    for (uint i = tid; i < (kProbeTK / 8) * kProbeTN; i += kProbeThreads) {
      const uint kw = i / kProbeTN;
      const uint col = i % kProbeTN;
      half w[8];
      load_weight_word<kFormatFp4>(codes, scales, codes, p, kw * 8, col, w);
#pragma clang loop unroll(full)
      for (uint j = 0; j < 8; ++j) {
        b_tile[(kw * 8 + j) * kProbeBStride + col] = w[j];
      }
    }
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (q.seed == q.sentinel) out[tid] = float(a_tile[tid]) + float(b_tile[tid]);
}

// The separate kernel's compute phase of one K-block: per simdgroup 4 K steps x 4 x 4
// multiply-accumulates (64) from the padded threadgroup tiles (marlin_gemm_fp4.metal, the
// `for kt` loop of the main loop).
kernel void probe_separate_compute(device float* out [[buffer(3)]],
                                   constant CalibParams& q [[buffer(5)]],
                                   uint tid [[thread_index_in_threadgroup]],
                                   uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup half a_cur[kProbeTM * kProbeAStride];
  threadgroup half b_cur[kProbeTK * kProbeBStride];
  for (uint i = tid; i < kProbeTM * kProbeAStride; i += kProbeThreads) a_cur[i] = half(q.seed);
  for (uint i = tid; i < kProbeTK * kProbeBStride; i += kProbeThreads) b_cur[i] = half(q.seed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  const uint sg_row = (sg / 2) * 32;
  const uint sg_col = (sg % 2) * 32;
  simdgroup_matrix<float, 8, 8> acc[kProbeFrags][kProbeFrags];
  clear_accumulators(acc);
  for (uint r = 0; r < q.reps; ++r) {
#pragma clang loop unroll(full)
    for (uint kt = 0; kt < kProbeTK / 8; ++kt) {
      simdgroup_matrix<half, 8, 8> a_frag[kProbeFrags];
#pragma clang loop unroll(full)
      for (uint mi = 0; mi < kProbeFrags; ++mi) {
        simdgroup_load(a_frag[mi], a_cur + (sg_row + mi * 8) * kProbeAStride + kt * 8,
                       kProbeAStride);
      }
#pragma clang loop unroll(full)
      for (uint ni = 0; ni < kProbeFrags; ++ni) {
        simdgroup_matrix<half, 8, 8> b_frag;
        simdgroup_load(b_frag, b_cur + kt * 8 * kProbeBStride + sg_col + ni * 8, kProbeBStride);
#pragma clang loop unroll(full)
        for (uint mi = 0; mi < kProbeFrags; ++mi) {
          simdgroup_multiply_accumulate(acc[mi][ni], a_frag[mi], b_frag, acc[mi][ni]);
        }
      }
    }
  }
  if (q.seed == q.sentinel) simdgroup_store(acc[0][0], out + sg * 64, 8);
}

// The fused kernel's dequantization of one 8x8 B block: lanes 0-7 each load one packed word
// with its scale and dequantize it (load_weight_word), then write their column to the
// simdgroup's staging block (fused_mainloop's `if (lane < 8)` block). 4 simdgroups.
kernel void probe_fused_dequant(device const uint* codes [[buffer(1)]],
                                device const half* scales [[buffer(2)]],
                                device float* out [[buffer(3)]],
                                constant GemmParams& p [[buffer(4)]],
                                constant CalibParams& q [[buffer(5)]],
                                uint tid [[thread_index_in_threadgroup]],
                                uint sg [[simdgroup_index_in_threadgroup]],
                                uint lane [[thread_index_in_simdgroup]]) {
  threadgroup half b_stage[4 * 64];
  threadgroup half* stage = b_stage + sg * 64;
  const uint sg_col = (sg % 2) * 32;
  for (uint r = 0; r < q.reps; ++r) {
    if (lane < 8) {
      half w[8];
      load_weight_word<kFormatFp4>(codes, scales, codes, p, 0, sg_col + lane, w);
#pragma clang loop unroll(full)
      for (uint j = 0; j < 8; ++j) {
        stage[j * 8 + lane] = w[j];
      }
    }
  }
  simdgroup_barrier(mem_flags::mem_threadgroup);
  if (q.seed == q.sentinel) out[tid] = float(stage[lane]);
}

// The fused kernel's inner loop of one K-block (fused_mainloop's `for kt` loop: per (kt, ni)
// lanes 0-7 dequantize one 8x8 B block into the staging block, simdgroup barrier, fragment
// load, 4 multiply-accumulates, simdgroup barrier), the A tile loaded once before.
kernel void probe_fused_inner(device const half* a [[buffer(0)]],
                              device const uint* codes [[buffer(1)]],
                              device const half* scales [[buffer(2)]],
                              device float* out [[buffer(3)]],
                              constant GemmParams& p [[buffer(4)]],
                              constant CalibParams& q [[buffer(5)]],
                              uint tid [[thread_index_in_threadgroup]],
                              uint sg [[simdgroup_index_in_threadgroup]],
                              uint lane [[thread_index_in_simdgroup]]) {
  threadgroup half a_tile[kProbeTM * kProbeTK];
  threadgroup half b_stage[4 * 64];
  threadgroup half* stage = b_stage + sg * 64;
  load_a_tile<kProbeTM, kProbeTK, kProbeTK, kProbeThreads>(a, p, 0, 0, a_tile, tid);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  const uint sg_row = (sg / 2) * 32;
  const uint sg_col = (sg % 2) * 32;
  simdgroup_matrix<float, 8, 8> acc[kProbeFrags][kProbeFrags];
  clear_accumulators(acc);
  for (uint r = 0; r < q.reps; ++r) {
#pragma clang loop unroll(full)
    for (uint kt = 0; kt < kProbeTK / 8; ++kt) {
      simdgroup_matrix<half, 8, 8> a_frag[kProbeFrags];
#pragma clang loop unroll(full)
      for (uint mi = 0; mi < kProbeFrags; ++mi) {
        simdgroup_load(a_frag[mi], a_tile + (sg_row + mi * 8) * kProbeTK + kt * 8, kProbeTK);
      }
#pragma clang loop unroll(full)
      for (uint ni = 0; ni < kProbeFrags; ++ni) {
        if (lane < 8) {
          half w[8];
          load_weight_word<kFormatFp4>(codes, scales, codes, p, kt * 8, sg_col + ni * 8 + lane,
                                       w);
#pragma clang loop unroll(full)
          for (uint j = 0; j < 8; ++j) {
            stage[j * 8 + lane] = w[j];
          }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_matrix<half, 8, 8> b_frag;
        simdgroup_load(b_frag, stage, 8);
#pragma clang loop unroll(full)
        for (uint mi = 0; mi < kProbeFrags; ++mi) {
          simdgroup_multiply_accumulate(acc[mi][ni], a_frag[mi], b_frag, acc[mi][ni]);
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
      }
    }
  }
  if (q.seed == q.sentinel) simdgroup_store(acc[0][0], out + sg * 64, 8);
}

// Dequantizing one packed E2M1 word in registers (dequant_fp4_word, what the striped kernel
// runs through fused_mainloop), one simdgroup. Each repetition feeds a bit of its result into
// the next word (one xor), so a compiler can neither hoist nor drop the work.
kernel void probe_dequant_word(device float* out [[buffer(3)]],
                               constant CalibParams& q [[buffer(5)]],
                               uint tid [[thread_index_in_threadgroup]]) {
  uint word = 0x7351F2A4u + tid;
  const half scale = half(q.seed);
  half w[8];
  for (uint r = 0; r < q.reps; ++r) {
    dequant_fp4_word(word, scale, w);
    word ^= uint(as_type<ushort>(w[7]));
  }
  if (q.seed == q.sentinel) out[tid] = float(w[0]) + float(word);
}
