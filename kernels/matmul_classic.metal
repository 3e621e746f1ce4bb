// The classic FP16 matmuls a Metal port starts from: C[M,N] = act(A[M,K] x B[K,N] + bias),
// all row-major FP16, FP32 accumulation.
//
// matmul_f16: one thread per output element. Grid: threads (N, M).
// matmul_tiled_f16 / matmul_tiled_32x32_f16: T x T threadgroups (T = 16 or 32) with one T x T
// tile of A and of B in threadgroup memory; each thread loads one element of each tile per
// step and computes one output. Grid: threadgroups (ceil(N/T), ceil(M/T)), T x T threads.
// Epilogue variants add a per-column bias and apply an activation (relu, gelu with the tanh
// approximation, silu); the suffix names them (_bias, _bias_relu, ...).
//
// Buffers: 0 A (half), 1 B (half), 2 bias (half, per column; epilogue variants only),
// 3 C (half), 4 GemmParams.
#include <metal_stdlib>

#include "common/params.h"
using namespace metal;

constant constexpr uint kActNone = 0;
constant constexpr uint kActRelu = 1;
constant constexpr uint kActGelu = 2;
constant constexpr uint kActSilu = 3;

template <bool BIAS, uint ACT>
inline float epilogue(float x, device const half* bias, uint col) {
  if (BIAS) {
    x += float(bias[col]);
  }
  if (ACT == kActRelu) {
    x = max(x, 0.0f);
  } else if (ACT == kActGelu) {
    const float inner = 0.7978845608f * (x + 0.044715f * x * x * x);
    x = 0.5f * x * (1.0f + tanh(inner));
  } else if (ACT == kActSilu) {
    x = x / (1.0f + exp(-x));
  }
  return x;
}

template <bool BIAS, uint ACT>
kernel void matmul_f16(device const half* a [[buffer(0)]],
                       device const half* b [[buffer(1)]],
                       device const half* bias [[buffer(2)]],
                       device half* c [[buffer(3)]],
                       constant GemmParams& p [[buffer(4)]],
                       uint2 gid [[thread_position_in_grid]]) {
  const uint col = gid.x;
  const uint row = gid.y;
  if (row >= p.m || col >= p.n) {
    return;
  }
  float acc = 0.0f;
  for (uint k = 0; k < p.k; ++k) {
    acc += float(a[row * p.k + k]) * float(b[k * p.n + col]);
  }
  c[row * p.n + col] = half(epilogue<BIAS, ACT>(acc, bias, col));
}

template <uint T, bool BIAS, uint ACT>
kernel void matmul_tiled(device const half* a [[buffer(0)]],
                         device const half* b [[buffer(1)]],
                         device const half* bias [[buffer(2)]],
                         device half* c [[buffer(3)]],
                         constant GemmParams& p [[buffer(4)]],
                         uint2 tg [[threadgroup_position_in_grid]],
                         uint2 tpos [[thread_position_in_threadgroup]]) {
  threadgroup half a_tile[T][T];
  threadgroup half b_tile[T][T];
  const uint row = tg.y * T + tpos.y;
  const uint col = tg.x * T + tpos.x;
  float acc = 0.0f;
  for (uint k0 = 0; k0 < p.k; k0 += T) {
    const uint ka = k0 + tpos.x;
    const uint kb = k0 + tpos.y;
    a_tile[tpos.y][tpos.x] = (row < p.m && ka < p.k) ? a[row * p.k + ka] : 0.0h;
    b_tile[tpos.y][tpos.x] = (kb < p.k && col < p.n) ? b[kb * p.n + col] : 0.0h;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint kk = 0; kk < T; ++kk) {
      acc += float(a_tile[tpos.y][kk]) * float(b_tile[kk][tpos.x]);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (row < p.m && col < p.n) {
    c[row * p.n + col] = half(epilogue<BIAS, ACT>(acc, bias, col));
  }
}

// The instantiated variants.
template [[host_name("matmul_f16")]] kernel void matmul_f16<false, kActNone>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 gid [[thread_position_in_grid]]);
template [[host_name("matmul_f16_bias")]] kernel void matmul_f16<true, kActNone>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 gid [[thread_position_in_grid]]);
template [[host_name("matmul_f16_bias_relu")]] kernel void matmul_f16<true, kActRelu>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 gid [[thread_position_in_grid]]);
template [[host_name("matmul_f16_bias_gelu")]] kernel void matmul_f16<true, kActGelu>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 gid [[thread_position_in_grid]]);
template [[host_name("matmul_f16_bias_silu")]] kernel void matmul_f16<true, kActSilu>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 gid [[thread_position_in_grid]]);
template [[host_name("matmul_tiled_f16")]] kernel void matmul_tiled<16, false, kActNone>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint2 tpos [[thread_position_in_threadgroup]]);
template [[host_name("matmul_tiled_f16_bias")]] kernel void matmul_tiled<16, true, kActNone>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint2 tpos [[thread_position_in_threadgroup]]);
template [[host_name("matmul_tiled_f16_bias_relu")]] kernel void matmul_tiled<16, true, kActRelu>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint2 tpos [[thread_position_in_threadgroup]]);
template [[host_name("matmul_tiled_f16_bias_gelu")]] kernel void matmul_tiled<16, true, kActGelu>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint2 tpos [[thread_position_in_threadgroup]]);
template [[host_name("matmul_tiled_f16_bias_silu")]] kernel void matmul_tiled<16, true, kActSilu>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint2 tpos [[thread_position_in_threadgroup]]);
template [[host_name("matmul_tiled_32x32_f16")]] kernel void matmul_tiled<32, false, kActNone>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint2 tpos [[thread_position_in_threadgroup]]);
template [[host_name("matmul_tiled_32x32_f16_bias")]] kernel void matmul_tiled<32, true, kActNone>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint2 tpos [[thread_position_in_threadgroup]]);
template [[host_name("matmul_tiled_32x32_f16_bias_relu")]] kernel void matmul_tiled<32, true, kActRelu>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint2 tpos [[thread_position_in_threadgroup]]);
template [[host_name("matmul_tiled_32x32_f16_bias_gelu")]] kernel void matmul_tiled<32, true, kActGelu>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint2 tpos [[thread_position_in_threadgroup]]);
template [[host_name("matmul_tiled_32x32_f16_bias_silu")]] kernel void matmul_tiled<32, true, kActSilu>(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device const half* bias [[buffer(2)]],
    device half* c [[buffer(3)]],
    constant GemmParams& p [[buffer(4)]],
    uint2 tg [[threadgroup_position_in_grid]],
    uint2 tpos [[thread_position_in_threadgroup]]);
