// Threadgroup-tile building blocks shared by the Marlin GEMM kernels: the cooperative A-tile
// load and the bounds-checked write-out of the float accumulators.
#pragma once

#include <metal_stdlib>

#include "params.h"
using namespace metal;

// A[row0 .. row0+TM)[k0 .. k0+TK) into `tile` (row stride STRIDE halves), zero outside
// the matrix. All THREADS threads of the threadgroup take part, one element per step.
template <uint TM, uint TK, uint STRIDE, uint THREADS>
inline void load_a_tile(device const half* a, constant GemmParams& p, uint row0, uint k0,
                        threadgroup half* tile, uint tid) {
  for (uint i = tid; i < TM * TK; i += THREADS) {
    const uint r = i / TK;
    const uint kk = i % TK;
    const uint row = row0 + r;
    const uint k = k0 + kk;
    tile[r * STRIDE + kk] = (row < p.m && k < p.k) ? a[row * p.k + k] : 0.0h;
  }
}

// Writes one simdgroup's 8x8 float accumulator to rows row0.., columns col0.. of a row-major
// M x N output, through `stage` (64 floats of threadgroup memory owned by this simdgroup),
// skipping elements outside the matrix. OUT is half (C) or float (a K-slice workspace).
template <typename OUT>
inline void store_accumulator(simdgroup_matrix<float, 8, 8> acc, threadgroup float* stage,
                              device OUT* out, uint m, uint n, uint row0, uint col0, uint lane) {
  simdgroup_store(acc, stage, 8);
  simdgroup_barrier(mem_flags::mem_threadgroup);
  for (uint e = lane; e < 64; e += 32) {
    const uint row = row0 + e / 8;
    const uint col = col0 + e % 8;
    if (row < m && col < n) {
      out[row * n + col] = OUT(stage[e]);
    }
  }
  simdgroup_barrier(mem_flags::mem_threadgroup);
}
