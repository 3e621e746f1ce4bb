#include "kernels/host/weight_format.h"

#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

const char* weight_format_kind_name(WeightFormatKind kind) {
  switch (kind) {
    case WeightFormatKind::kFp16:
      return "fp16";
    case WeightFormatKind::kFp4E2M1:
      return "fp4_e2m1";
    case WeightFormatKind::kU4B8:
      return "u4b8";
    case WeightFormatKind::kU4ZeroPoint:
      return "u4_zp";
    case WeightFormatKind::kInt8:
      return "int8";
  }
  return "unknown";
}

void WeightFormat::validate() const {
  if (kind == WeightFormatKind::kFp16) return;
  if (group_size == kPerColumnGroup) return;
  if (group_size <= 0 || group_size % 8 != 0) {
    throw InputError(std::string("weight format ") + weight_format_kind_name(kind) +
                     ": group size " + std::to_string(group_size) +
                     " must be a positive multiple of 8 or -1 (per column)");
  }
}

int WeightFormat::code_bits() const {
  switch (kind) {
    case WeightFormatKind::kFp16:
      return 16;
    case WeightFormatKind::kInt8:
      return 8;
    default:
      return 4;
  }
}

int WeightFormat::codes_per_word() const {
  return kind == WeightFormatKind::kFp16 ? 0 : 32 / code_bits();
}

std::int64_t WeightFormat::effective_group(std::int64_t k) const {
  return group_size == kPerColumnGroup ? k : group_size;
}

std::int64_t WeightFormat::group_count(std::int64_t k) const {
  if (!has_scales() || k <= 0) return 0;
  return ceil_div(k, effective_group(k));
}

std::int64_t WeightFormat::packed_rows(std::int64_t k) const {
  if (kind == WeightFormatKind::kFp16) return k;
  return ceil_div(k, codes_per_word());
}

std::int64_t WeightFormat::weight_bytes(std::int64_t k, std::int64_t n) const {
  if (kind == WeightFormatKind::kFp16) return 2 * k * n;
  return 4 * packed_rows(k) * n;
}

std::int64_t WeightFormat::scale_bytes(std::int64_t k, std::int64_t n) const {
  return 2 * group_count(k) * n;
}

std::int64_t WeightFormat::zero_point_bytes(std::int64_t k, std::int64_t n) const {
  if (!has_zero_points()) return 0;
  return 4 * group_count(k) * ceil_div(n, 8);
}

std::int64_t WeightFormat::total_bytes(std::int64_t k, std::int64_t n) const {
  return weight_bytes(k, n) + scale_bytes(k, n) + zero_point_bytes(k, n);
}

double WeightFormat::bits_per_weight(std::int64_t k, std::int64_t n) const {
  if (k <= 0 || n <= 0) return 0.0;
  return 8.0 * static_cast<double>(total_bytes(k, n)) / static_cast<double>(k * n);
}

std::string WeightFormat::name() const {
  std::string result = weight_format_kind_name(kind);
  if (kind == WeightFormatKind::kFp16) return result;
  if (group_size == kPerColumnGroup) return result + "/per_column";
  return result + "/g" + std::to_string(group_size);
}

}  // namespace marlin::kernels
