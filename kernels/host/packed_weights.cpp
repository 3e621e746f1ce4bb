#include "kernels/host/packed_weights.h"

#include <string>

#include "kernels/host/code_packing.h"
#include "kernels/host/e2m1.h"
#include "kernels/host/widen_rows.h"
#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

void check_size(std::size_t actual, std::int64_t expected, const std::string& what) {
  if (static_cast<std::int64_t>(actual) != expected) {
    throw InputError(what + ": got " + std::to_string(actual) + " elements, expected " +
                     std::to_string(expected));
  }
}

std::int64_t zero_point_words_per_row(std::int64_t n) { return (n + 7) / 8; }

}  // namespace

void PackedWeights::validate() const {
  const std::string what = "packed weights (" + format.name() + ", " + std::to_string(k) + " x " +
                           std::to_string(n) + ")";
  if (k <= 0 || n <= 0) throw InputError(what + ": shape must be positive");
  if (format.kind == WeightFormatKind::kFp16) {
    throw InputError(what + ": fp16 weights are not packed");
  }
  format.validate();
  check_size(codes.size(), format.packed_rows(k) * n, what + " codes");
  check_size(scales.size(), format.group_count(k) * n, what + " scales");
  const std::int64_t zeros =
      format.has_zero_points() ? format.group_count(k) * zero_point_words_per_row(n) : 0;
  check_size(zero_points.size(), zeros, what + " zero points");
}

PackedWeights make_packed_weights(const WeightFormat& format, std::int64_t k, std::int64_t n,
                                  std::span<const std::uint8_t> codes, std::span<const Half> scales,
                                  std::span<const std::uint8_t> zero_points) {
  PackedWeights result;
  result.format = format;
  result.k = k;
  result.n = n;
  if (k <= 0 || n <= 0 || format.kind == WeightFormatKind::kFp16) {
    result.validate();  // throws with the reason
  }
  format.validate();
  result.codes = pack_codes_along_k(codes, k, n, format.code_bits());
  result.scales.assign(scales.begin(), scales.end());
  if (format.has_zero_points()) {
    check_size(zero_points.size(), format.group_count(k) * n, "make_packed_weights zero points");
    result.zero_points = pack_nibbles_along_n(zero_points, format.group_count(k), n);
  } else if (!zero_points.empty()) {
    throw InputError("make_packed_weights: format " + format.name() + " has no zero points");
  }
  result.validate();
  return result;
}

PackedWeights widen_columns(const PackedWeights& narrow, std::int64_t n) {
  narrow.validate();
  if (n < narrow.n) {
    throw InputError("widen_columns: " + std::to_string(n) + " columns cannot hold the " +
                     std::to_string(narrow.n) + " of the weights");
  }
  PackedWeights wide;
  wide.format = narrow.format;
  wide.k = narrow.k;
  wide.n = n;
  wide.codes = widen_rows(narrow.codes, narrow.format.packed_rows(narrow.k), narrow.n, n);
  const std::int64_t groups = narrow.format.group_count(narrow.k);
  wide.scales = widen_rows(narrow.scales, groups, narrow.n, n);
  if (narrow.format.has_zero_points()) {
    // The narrow rows' last word pads its unused nibbles with zeros: the added columns' zeros.
    wide.zero_points = widen_rows(narrow.zero_points, groups, zero_point_words_per_row(narrow.n),
                                  zero_point_words_per_row(n));
  }
  wide.validate();
  return wide;
}

std::vector<std::uint8_t> unpack_codes(const PackedWeights& weights) {
  weights.validate();
  return unpack_codes_along_k(weights.codes, weights.k, weights.n, weights.format.code_bits());
}

std::vector<std::uint8_t> unpack_zero_points(const PackedWeights& weights) {
  weights.validate();
  if (!weights.format.has_zero_points()) return {};
  return unpack_nibbles_along_n(weights.zero_points, weights.format.group_count(weights.k),
                                weights.n);
}

float dequantize_code(WeightFormatKind kind, std::uint8_t code, float scale, int zero_point) {
  switch (kind) {
    case WeightFormatKind::kFp4E2M1:
      return decode_e2m1(code) * scale;
    case WeightFormatKind::kU4B8:
      return static_cast<float>(static_cast<int>(code & 0xF) - 8) * scale;
    case WeightFormatKind::kU4ZeroPoint:
      return static_cast<float>(static_cast<int>(code & 0xF) - zero_point) * scale;
    case WeightFormatKind::kInt8:
      return static_cast<float>(static_cast<std::int8_t>(code)) * scale;
    case WeightFormatKind::kFp16:
      break;
  }
  throw InputError("dequantize_code: fp16 weights have no codes");
}

std::vector<float> dequantize(const PackedWeights& weights) {
  const std::vector<std::uint8_t> codes = unpack_codes(weights);
  const std::vector<std::uint8_t> zeros = unpack_zero_points(weights);
  std::vector<float> result(codes.size());
  for (std::int64_t r = 0; r < weights.k; ++r) {
    const std::int64_t group = weights.group_of(r);
    for (std::int64_t j = 0; j < weights.n; ++j) {
      const auto at = static_cast<std::size_t>(group * weights.n + j);
      const int zero = zeros.empty() ? 0 : zeros[at];
      const auto index = static_cast<std::size_t>(r * weights.n + j);
      result[index] = dequantize_code(weights.format.kind, codes[index],
                                      static_cast<float>(weights.scales[at]), zero);
    }
  }
  return result;
}

}  // namespace marlin::kernels
