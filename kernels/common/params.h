// Launch parameters shared by the Metal kernels and the host code that launches them.
//
// Plain `unsigned int` fields only (32-bit in Metal and on every host), no includes, so the
// same header compiles as Metal and as C++ with one layout; bound as
// `constant GemmParams& params [[buffer(n)]]`.
#pragma once

// A GEMM C[M,N] = A[M,K] x W[K,N]: A and C are row-major FP16, W is quantized (see
// docs/weight-formats.md) or FP16 row-major for the classic matmuls.
struct GemmParams {
  unsigned int m;
  unsigned int n;
  unsigned int k;
  unsigned int group_size;        // K rows per scale row; equals k for per-column scales
  unsigned int k_parallel;        // striped kernel: K slices per output tile (1 = no split)
  unsigned int num_threadgroups;  // striped kernel: threadgroups in the 1D launch
  unsigned int activation;        // classic matmuls: 0 none, 1 relu, 2 gelu (tanh), 3 silu
  unsigned int reserved;
};

// Standalone dequantization of a packed K x N weight matrix into FP16 [K, N].
struct DequantParams {
  unsigned int k;
  unsigned int n;
  unsigned int group_size;  // K rows per scale row; equals k for per-column scales
  unsigned int has_zero_points;  // u4 only: 0 = symmetric U4B8 (zero 8), 1 = explicit zero points
};
