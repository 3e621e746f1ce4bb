#include "kernels/host/quantize.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "kernels/host/e2m1.h"
#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

// Scale and zero point chosen for one group of one column.
struct GroupParams {
  Half scale = Half(1.0f);
  double divisor = 1.0;  // the scale in double, what each value is divided by
  int zero_point = 0;
};

// Round half to even (the default floating-point rounding mode).
int round_even(double x) { return static_cast<int>(std::nearbyint(x)); }

void check_shape(std::int64_t k, std::int64_t n, const WeightFormat& format) {
  if (format.kind == WeightFormatKind::kFp16) {
    throw InputError("quantize: fp16 is not a quantized weight format");
  }
  if (k <= 0 || n <= 0) {
    throw InputError("quantize " + format.name() + ": shape " + std::to_string(k) + " x " +
                     std::to_string(n) + " must be positive");
  }
}

// Rows [first_row, first_row + w.size() / n) of the weights must be finite.
void check_finite(std::span<const float> w, std::int64_t first_row, std::int64_t n,
                  const WeightFormat& format) {
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (!std::isfinite(w[i])) {
      const std::int64_t at = static_cast<std::int64_t>(i);
      throw InputError("quantize " + format.name() + ": weight [" +
                       std::to_string(first_row + at / n) + "][" + std::to_string(at % n) +
                       "] is not finite");
    }
  }
}

// Scale and zero point of a group from the smallest and largest of its values (each taken
// with 0, so lo <= 0 <= hi), per the rules in quantize.h.
GroupParams choose_params(WeightFormatKind kind, double lo, double hi) {
  const double absmax = std::max(-lo, hi);
  GroupParams params;
  if (absmax == 0.0) return params;  // all zeros: s = 1, z = 0
  switch (kind) {
    case WeightFormatKind::kFp4E2M1:
      params.scale = half_at_least(absmax / kE2M1Max, "FP4 group scale");
      break;
    case WeightFormatKind::kU4B8:
      params.scale = half_at_least(absmax / 7.5, "U4B8 group scale");
      break;
    case WeightFormatKind::kU4ZeroPoint:
      params.scale = half_at_least((hi - lo) / 15.0, "U4 zero-point group scale");
      params.zero_point = std::clamp(round_even(-lo / static_cast<double>(params.scale)), 0, 15);
      break;
    case WeightFormatKind::kInt8:
      params.scale = half_at_least(absmax / 127.0, "INT8 group scale");
      break;
    case WeightFormatKind::kFp16:
      break;
  }
  params.divisor = static_cast<double>(params.scale);
  return params;
}

// Code of one value given its group's parameters.
std::uint8_t encode(WeightFormatKind kind, double value, const GroupParams& params) {
  const double x = value / params.divisor;
  switch (kind) {
    case WeightFormatKind::kFp4E2M1:
      return encode_e2m1(x);
    case WeightFormatKind::kU4B8:
      return static_cast<std::uint8_t>(std::clamp(round_even(x) + 8, 0, 15));
    case WeightFormatKind::kU4ZeroPoint:
      return static_cast<std::uint8_t>(std::clamp(round_even(x) + params.zero_point, 0, 15));
    case WeightFormatKind::kInt8:
      return static_cast<std::uint8_t>(
          static_cast<std::int8_t>(std::clamp(round_even(x), -127, 127)));
    case WeightFormatKind::kFp16:
      break;
  }
  return 0;
}

// The arrays quantization writes: codes [k][n], scales and zero points [groups][n].
struct QuantizedArrays {
  std::vector<std::uint8_t> codes;
  std::vector<Half> scales;
  std::vector<std::uint8_t> zeros;  // empty for formats without zero points
};

// Codes, scales and zero points of columns [begin, end) of rows [first_row, first_row + rows)
// of the k x n weights, written at their places in `out`. `w` holds those rows (rows x n,
// row-major); they start a group and end one or end K.
void quantize_columns(std::span<const float> w, std::int64_t first_row, std::int64_t k,
                      std::int64_t n, const WeightFormat& format, std::int64_t begin,
                      std::int64_t end, QuantizedArrays& out) {
  const std::int64_t group = format.effective_group(k);
  const std::int64_t last = first_row + static_cast<std::int64_t>(w.size()) / n;
  const auto width = static_cast<std::size_t>(end - begin);
  // Row by row within each group, so the weights are read in memory order: the smallest and
  // largest value of every column first, then every code.
  std::vector<double> lo(width);
  std::vector<double> hi(width);
  std::vector<GroupParams> params(width);
  for (std::int64_t g = first_row / group; g * group < last; ++g) {
    const std::int64_t group_first = g * group;
    const std::int64_t group_last = std::min(last, group_first + group);
    std::fill(lo.begin(), lo.end(), 0.0);
    std::fill(hi.begin(), hi.end(), 0.0);
    for (std::int64_t r = group_first; r < group_last; ++r) {
      const float* row = w.data() + (r - first_row) * n + begin;
      for (std::size_t j = 0; j < width; ++j) {
        lo[j] = std::min(lo[j], static_cast<double>(row[j]));
        hi[j] = std::max(hi[j], static_cast<double>(row[j]));
      }
    }
    for (std::size_t j = 0; j < width; ++j) {
      params[j] = choose_params(format.kind, lo[j], hi[j]);
      const std::size_t at = static_cast<std::size_t>(g * n + begin) + j;
      out.scales[at] = params[j].scale;
      if (!out.zeros.empty()) out.zeros[at] = static_cast<std::uint8_t>(params[j].zero_point);
    }
    for (std::int64_t r = group_first; r < group_last; ++r) {
      const float* row = w.data() + (r - first_row) * n + begin;
      std::uint8_t* codes = out.codes.data() + r * n + begin;
      for (std::size_t j = 0; j < width; ++j) {
        codes[j] = encode(format.kind, static_cast<double>(row[j]), params[j]);
      }
    }
  }
}

// Weights from which quantize_rows() splits the columns in two halves, one on a helper
// thread: the halves write disjoint elements, so the result does not depend on the split.
constexpr std::int64_t kParallelWeights = std::int64_t{1} << 18;

// All columns of the rows that `w` holds from `first_row` (as quantize_columns()).
void quantize_rows(std::span<const float> w, std::int64_t first_row, std::int64_t k, std::int64_t n,
                   const WeightFormat& format, QuantizedArrays& out) {
  check_finite(w, first_row, n, format);
  const auto columns = [&](std::int64_t begin, std::int64_t end) {
    quantize_columns(w, first_row, k, n, format, begin, end, out);
  };
  if (static_cast<std::int64_t>(w.size()) < kParallelWeights || n < 2) {
    columns(0, n);
    return;
  }
  // A scale out of FP16's range throws in either half; the sequential pass below then
  // reports the first one in the order a sequential pass meets them.
  std::future<void> right = std::async(std::launch::async, columns, n / 2, n);
  bool failed = false;
  try {
    columns(0, n / 2);
  } catch (const InputError&) {
    failed = true;
  }
  try {
    right.get();
  } catch (const InputError&) {
    failed = true;
  }
  if (failed) columns(0, n);
}

QuantizedArrays allocate_arrays(std::int64_t k, std::int64_t n, const WeightFormat& format) {
  QuantizedArrays out;
  out.codes.resize(static_cast<std::size_t>(k * n));
  out.scales.resize(static_cast<std::size_t>(format.group_count(k) * n));
  if (format.has_zero_points()) out.zeros.resize(out.scales.size());
  return out;
}

PackedWeights pack(std::int64_t k, std::int64_t n, const WeightFormat& format,
                   const QuantizedArrays& arrays) {
  return make_packed_weights(format, k, n, arrays.codes, arrays.scales, arrays.zeros);
}

}  // namespace

PackedWeights quantize_weights(std::span<const float> w, std::int64_t k, std::int64_t n,
                               const WeightFormat& format) {
  check_shape(k, n, format);
  if (static_cast<std::int64_t>(w.size()) != k * n) {
    throw InputError("quantize " + format.name() + ": got " + std::to_string(w.size()) +
                     " weights, expected " + std::to_string(k * n));
  }
  format.validate();
  QuantizedArrays arrays = allocate_arrays(k, n, format);
  quantize_rows(w, 0, k, n, format, arrays);
  return pack(k, n, format, arrays);
}

std::int64_t weight_rows_per_call(std::int64_t k, std::int64_t n, const WeightFormat& format) {
  const std::int64_t group = format.effective_group(k);
  const std::int64_t pair = 2 * group;
  const std::int64_t pairs = std::max<std::int64_t>(1, kWeightRowValues / (pair * n));
  return std::min(k, pairs * pair);
}

PackedWeights quantize_weight_rows(std::int64_t k, std::int64_t n, const WeightFormat& format,
                                   const WeightRowSource& next_rows) {
  check_shape(k, n, format);
  format.validate();
  QuantizedArrays arrays = allocate_arrays(k, n, format);
  const std::int64_t step = weight_rows_per_call(k, n, format);
  // Written by next_rows before it is read: not initialized.
  const auto buffer = std::make_unique_for_overwrite<float[]>(static_cast<std::size_t>(step * n));
  for (std::int64_t first = 0; first < k; first += step) {
    const std::int64_t rows = std::min(step, k - first);
    const std::span<float> w(buffer.get(), static_cast<std::size_t>(rows * n));
    next_rows(w);
    quantize_rows(w, first, k, n, format, arrays);
  }
  return pack(k, n, format, arrays);
}

PackedWeights pack_fp4_weights(std::span<const float> w, std::int64_t k, std::int64_t n,
                               int group_size) {
  return quantize_weights(w, k, n, {WeightFormatKind::kFp4E2M1, group_size});
}

PackedWeights quantize_u4b8(std::span<const float> w, std::int64_t k, std::int64_t n,
                            int group_size) {
  return quantize_weights(w, k, n, {WeightFormatKind::kU4B8, group_size});
}

PackedWeights quantize_u4_zero_point(std::span<const float> w, std::int64_t k, std::int64_t n,
                                     int group_size) {
  return quantize_weights(w, k, n, {WeightFormatKind::kU4ZeroPoint, group_size});
}

PackedWeights quantize_int8(std::span<const float> w, std::int64_t k, std::int64_t n,
                            int group_size) {
  return quantize_weights(w, k, n, {WeightFormatKind::kInt8, group_size});
}

}  // namespace marlin::kernels
