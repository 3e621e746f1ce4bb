#include "model/analytic/intensity.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "fmt/core.h"
#include "model/common/input_error.h"
#include "model/device/device_math.h"

namespace marlin::analytic {
namespace {

constexpr std::int64_t kHalfBytes = 2;  // fp16 activations, outputs and scales
constexpr int kZeroPointBits = 4;       // u4 zero points, packed two per byte

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

void require_positive(std::int64_t value, const char* what) {
  if (value < 1) throw InputError(fmt::format("{} must be at least 1 (got {})", what, value));
}

}  // namespace

int weight_bits(WeightFormat format) {
  switch (format) {
    case WeightFormat::kFp16:
      return 16;
    case WeightFormat::kFp4:
    case WeightFormat::kU4:
      return 4;
  }
  return 16;
}

std::string_view weight_format_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::kFp16:
      return "fp16";
    case WeightFormat::kFp4:
      return "fp4";
    case WeightFormat::kU4:
      return "u4";
  }
  return "unknown";
}

WeightFormat parse_weight_format(std::string_view name) {
  for (const WeightFormat format : {WeightFormat::kFp16, WeightFormat::kFp4, WeightFormat::kU4}) {
    if (weight_format_name(format) == name) return format;
  }
  throw InputError(fmt::format("unknown weight format '{}' (expected fp16, fp4 or u4)", name));
}

std::string_view bound_name(Bound bound) { return bound == Bound::kCompute ? "compute" : "memory"; }

void validate_weights(const WeightSpec& weights) {
  const std::string_view format = weight_format_name(weights.format);
  if (weights.format == WeightFormat::kFp16 && weights.scales != ScaleMode::kNone) {
    throw InputError("fp16 weights take no scales");
  }
  if (weights.zero_points && weights.format != WeightFormat::kU4) {
    throw InputError(fmt::format("zero points apply to u4 weights only (got {})", format));
  }
  if (weights.zero_points && weights.scales == ScaleMode::kNone) {
    throw InputError("zero points need scales (per group or per column)");
  }
  if (weights.scales == ScaleMode::kPerGroup && weights.group_size < 1) {
    throw InputError(fmt::format("group size must be at least 1 (got {})", weights.group_size));
  }
}

IterationIntensity iteration_intensity(const Tile& tile, const WeightSpec& weights) {
  validate_tile(tile);
  validate_weights(weights);
  const std::int64_t tm = tile.tm;
  const std::int64_t tn = tile.tn;
  const std::int64_t tk = tile.tk;
  IterationIntensity result;
  result.flops = 2 * tm * tn * tk;
  result.a_bytes = static_cast<double>(tm * tk * kHalfBytes);
  result.b_bytes = static_cast<double>(tk * tn * weight_bits(weights.format)) / 8.0;
  if (weights.scales == ScaleMode::kPerGroup) {
    // Amortized: a group of G rows of K spans tk / G iterations' worth of scales (fractional).
    const double groups = static_cast<double>(tk) / weights.group_size;
    result.scale_bytes = groups * static_cast<double>(tn * kHalfBytes);
    if (weights.zero_points) {
      result.zero_point_bytes = groups * static_cast<double>(tn * kZeroPointBits) / 8.0;
    }
  }
  // Per-column scales are loaded once for the whole K, not per iteration: counted as 0 here.
  result.total_bytes =
      result.a_bytes + result.b_bytes + result.scale_bytes + result.zero_point_bytes;
  result.intensity = static_cast<double>(result.flops) / result.total_bytes;
  result.intensity_without_scales =
      static_cast<double>(result.flops) / (result.a_bytes + result.b_bytes);
  return result;
}

ProblemIntensity problem_intensity(const ProblemShape& shape, const WeightSpec& weights) {
  require_positive(shape.m, "M");
  require_positive(shape.n, "N");
  require_positive(shape.k, "K");
  validate_weights(weights);
  const std::int64_t m = shape.m;
  const std::int64_t n = shape.n;
  const std::int64_t k = shape.k;
  ProblemIntensity result;
  result.flops = 2 * m * n * k;
  result.a_bytes = kHalfBytes * m * k;
  result.b_bytes = ceil_div(k * n * weight_bits(weights.format), 8);
  std::int64_t scale_count = 0;
  if (weights.scales == ScaleMode::kPerGroup) {
    scale_count = ceil_div(k, weights.group_size) * n;
  } else if (weights.scales == ScaleMode::kPerColumn) {
    scale_count = n;
  }
  result.scale_bytes = scale_count * kHalfBytes;
  if (weights.zero_points) result.zero_point_bytes = ceil_div(scale_count * kZeroPointBits, 8);
  result.c_bytes = kHalfBytes * m * n;
  result.total_bytes = result.a_bytes + result.b_bytes + result.scale_bytes +
                       result.zero_point_bytes + result.c_bytes;
  result.intensity = static_cast<double>(result.flops) / static_cast<double>(result.total_bytes);
  return result;
}

RooflineMachine roofline_machine(const model::DeviceSpec& device) {
  RooflineMachine machine;
  machine.peak_flops = model::peak_fp16_flops(device.gpu, device.pipes);
  machine.peak_matmul_flops = model::peak_matmul_f16_flops(device.gpu, device.pipes);
  machine.dram_bytes_per_s = device.memory.dram_bandwidth_bytes_per_s;
  return machine;
}

Roofline roofline(const RooflineMachine& machine, double flops, double bytes) {
  struct NamedFigure {
    const char* name;
    double value;
  };
  const std::array<NamedFigure, 3> figures{
      {{"peak FP16 FLOP/s", machine.peak_flops},
       {"peak simdgroup-matrix FLOP/s", machine.peak_matmul_flops},
       {"DRAM bandwidth", machine.dram_bytes_per_s}}};
  for (const auto& figure : figures) {
    if (!(figure.value > 0) || !std::isfinite(figure.value)) {
      throw InputError(
          fmt::format("roofline needs a positive, finite {} (got {})", figure.name, figure.value));
    }
  }
  if (!(flops >= 0) || !(bytes > 0)) {
    throw InputError(fmt::format("roofline needs FLOPs >= 0 and bytes > 0 (got {} FLOPs, {} bytes)",
                                 flops, bytes));
  }
  Roofline result;
  result.intensity = flops / bytes;
  const double memory_roof = result.intensity * machine.dram_bytes_per_s;
  result.machine_balance = machine.peak_flops / machine.dram_bytes_per_s;
  result.attainable_flops = std::min(machine.peak_flops, memory_roof);
  result.bound = result.intensity >= result.machine_balance ? Bound::kCompute : Bound::kMemory;
  result.matmul_balance = machine.peak_matmul_flops / machine.dram_bytes_per_s;
  result.attainable_matmul_flops = std::min(machine.peak_matmul_flops, memory_roof);
  result.matmul_bound =
      result.intensity >= result.matmul_balance ? Bound::kCompute : Bound::kMemory;
  result.compute_time_s = flops / machine.peak_flops;
  result.memory_time_s = bytes / machine.dram_bytes_per_s;
  result.lower_bound_time_s = std::max(result.compute_time_s, result.memory_time_s);
  return result;
}

}  // namespace marlin::analytic
