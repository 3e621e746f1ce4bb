#include "kernels/host/reference_gemm.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

void check_size(std::size_t actual, std::int64_t expected, const char* what) {
  if (static_cast<std::int64_t>(actual) != expected) {
    throw InputError(std::string("reference_gemm: ") + what + " has " + std::to_string(actual) +
                     " elements, expected " + std::to_string(expected));
  }
}

template <typename T>
double relative_error(std::span<const T> c, std::span<const double> r) {
  if (c.size() != r.size()) {
    throw InputError("relative_frobenius_error: " + std::to_string(c.size()) + " vs " +
                     std::to_string(r.size()) + " elements");
  }
  double diff_sq = 0.0;
  double ref_sq = 0.0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const auto value = static_cast<double>(c[i]);
    if (std::isnan(value)) return std::numeric_limits<double>::quiet_NaN();
    const double diff = value - r[i];
    diff_sq += diff * diff;
    ref_sq += r[i] * r[i];
  }
  if (ref_sq == 0.0) return diff_sq == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff_sq) / std::sqrt(ref_sq);
}

}  // namespace

const char* activation_name(Activation activation) {
  switch (activation) {
    case Activation::kIdentity:
      return "identity";
    case Activation::kRelu:
      return "relu";
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kSilu:
      return "silu";
  }
  return "unknown";
}

double apply_activation(Activation activation, double x) {
  switch (activation) {
    case Activation::kIdentity:
      return x;
    case Activation::kRelu:
      return x > 0.0 ? x : 0.0;
    case Activation::kGeluTanh: {
      const double kSqrt2OverPi = std::sqrt(2.0 / std::numbers::pi);
      return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
    }
    case Activation::kSilu:
      return x / (1.0 + std::exp(-x));
  }
  return x;
}

std::vector<double> reference_gemm(std::span<const Half> a, std::span<const float> w,
                                   std::int64_t m, std::int64_t n, std::int64_t k,
                                   std::span<const Half> bias, Activation activation) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw InputError("reference_gemm: shape M=" + std::to_string(m) + " N=" + std::to_string(n) +
                     " K=" + std::to_string(k) + " must be positive");
  }
  check_size(a.size(), m * k, "A");
  check_size(w.size(), k * n, "W");
  if (!bias.empty()) check_size(bias.size(), n, "bias");
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i) {
    double* row = &c[static_cast<std::size_t>(i * n)];
    for (std::int64_t r = 0; r < k; ++r) {
      const auto a_ir = static_cast<double>(a[static_cast<std::size_t>(i * k + r)]);
      const float* w_row = &w[static_cast<std::size_t>(r * n)];
      for (std::int64_t j = 0; j < n; ++j) row[j] += a_ir * static_cast<double>(w_row[j]);
    }
    for (std::int64_t j = 0; j < n; ++j) {
      const double biased = bias.empty() ? row[j] : row[j] + static_cast<double>(bias[j]);
      row[j] = apply_activation(activation, biased);
    }
  }
  return c;
}

double relative_frobenius_error(std::span<const Half> c, std::span<const double> r) {
  return relative_error(c, r);
}
double relative_frobenius_error(std::span<const float> c, std::span<const double> r) {
  return relative_error(c, r);
}
double relative_frobenius_error(std::span<const double> c, std::span<const double> r) {
  return relative_error(c, r);
}

}  // namespace marlin::kernels
