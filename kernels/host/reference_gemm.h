// CPU reference GEMM and the error measure every kernel is checked with.
//
// reference_gemm computes, in double precision,
//   R[i][j] = act( sum_r A[i][r] * W[r][j] + bias[j] )
// with A [M, K] FP16 row-major, W [K, N] float row-major (normally dequantize() of the packed
// weights the kernel reads, so only the kernel's arithmetic differs), bias [N] FP16 or empty.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/host/fp16.h"

namespace marlin::kernels {

enum class Activation {
  kIdentity,  // x
  kRelu,      // max(x, 0)
  kGeluTanh,  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
  kSilu,      // x / (1 + exp(-x))
};

const char* activation_name(Activation activation);
double apply_activation(Activation activation, double x);

// Throws InputError for a non-positive shape or an array whose size does not match it.
std::vector<double> reference_gemm(std::span<const Half> a, std::span<const float> w,
                                   std::int64_t m, std::int64_t n, std::int64_t k,
                                   std::span<const Half> bias = {},
                                   Activation activation = Activation::kIdentity);

// ||C - R||_F / ||R||_F over all elements. NaN if any element of C is NaN (so a poisoned,
// unwritten element fails every `error <= tolerance` check); when ||R||_F is 0 the result is
// 0 if C equals R and +inf otherwise. Throws InputError if the sizes differ.
double relative_frobenius_error(std::span<const Half> c, std::span<const double> r);
double relative_frobenius_error(std::span<const float> c, std::span<const double> r);
double relative_frobenius_error(std::span<const double> c, std::span<const double> r);

}  // namespace marlin::kernels
