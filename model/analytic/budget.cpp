#include "model/analytic/budget.h"

#include <algorithm>
#include <optional>

#include "fmt/core.h"
#include "model/common/input_error.h"

namespace marlin::analytic {
namespace {

constexpr std::int64_t kHalfBytes = 2;
constexpr std::int64_t kMmaElements =
    std::int64_t{kMmaDim} * kMmaDim;  // 64 values in one 8x8 matrix

// bytes of `count` arrays of `rows` rows of `cols` + padding halves.
BudgetComponent half_array(std::string name, std::int64_t count, std::int64_t rows,
                           std::int64_t cols, std::int64_t padding) {
  BudgetComponent component;
  component.name = std::move(name);
  component.bytes = count * rows * (cols + padding) * kHalfBytes;
  component.shape = fmt::format("{} x {} x ({}+{}) half", count, rows, cols, padding);
  return component;
}

bool fits(const Tile& tile, SgLayout layout) {
  if (layout.rows < 1 || layout.cols < 1) return false;
  if (tile.tm % layout.rows != 0 || tile.tn % layout.cols != 0) return false;
  const int block_rows = tile.tm / layout.rows;
  const int block_cols = tile.tn / layout.cols;
  return block_rows % kMmaDim == 0 && block_cols % kMmaDim == 0;
}

}  // namespace

std::string_view kernel_variant_name(KernelVariant variant) {
  return variant == KernelVariant::kDoubleBufferedSeparate ? "separate" : "fused";
}

BudgetResult threadgroup_memory_budget(const Tile& tile, KernelVariant variant,
                                       const BudgetOptions& options,
                                       const model::LimitsSpec& limits) {
  validate_tile(tile);
  if (options.row_padding_halves < 0) {
    throw InputError(fmt::format("row padding must not be negative (got {} halves)",
                                 options.row_padding_halves));
  }
  if (options.simdgroups < 1) {
    throw InputError(
        fmt::format("simdgroups per threadgroup must be at least 1 (got {})", options.simdgroups));
  }
  const std::int64_t pad = options.row_padding_halves;
  BudgetResult result;
  result.variant = variant;
  if (variant == KernelVariant::kDoubleBufferedSeparate) {
    result.components.push_back(half_array("A tiles", 2, tile.tm, tile.tk, pad));
    result.components.push_back(half_array("B tiles", 2, tile.tk, tile.tn, pad));
  } else {
    result.components.push_back(half_array("A tile", 1, tile.tm, tile.tk, pad));
    result.components.push_back(half_array("B staging", options.simdgroups, kMmaDim, kMmaDim, pad));
  }
  for (const BudgetComponent& component : result.components) {
    result.total_bytes += component.bytes;
  }
  result.limit_bytes = limits.max_threadgroup_memory_bytes;
  result.percent_of_limit = result.limit_bytes > 0
                                ? 100.0 * static_cast<double>(result.total_bytes) /
                                      static_cast<double>(result.limit_bytes)
                                : 0.0;
  result.headroom_bytes = result.limit_bytes - result.total_bytes;
  if (result.total_bytes > result.limit_bytes) {
    result.refused = true;
    result.refusal_reason = fmt::format(
        "{} {}: {} bytes of threadgroup memory exceed the per-threadgroup limit of {}",
        tile_name(tile), kernel_variant_name(variant), result.total_bytes, result.limit_bytes);
  }
  return result;
}

LayoutResult analyze_layout(const Tile& tile, SgLayout layout, int simd_width) {
  validate_tile(tile);
  if (simd_width < 1) {
    throw InputError(fmt::format("simd width must be at least 1 (got {})", simd_width));
  }
  if (!fits(tile, layout)) {
    throw InputError(fmt::format(
        "simdgroup layout {}x{} does not split tile {} into blocks that are multiples of {}",
        layout.rows, layout.cols, tile_name(tile), kMmaDim));
  }
  LayoutResult result;
  result.layout = layout;
  result.simdgroups = layout.rows * layout.cols;
  result.block_rows = tile.tm / layout.rows;
  result.block_cols = tile.tn / layout.cols;
  result.accumulators = (result.block_rows / kMmaDim) * (result.block_cols / kMmaDim);
  const double values_per_thread =
      static_cast<double>(result.accumulators * kMmaElements) / simd_width;
  result.bytes_per_thread_fp16 = values_per_thread * 2;
  result.bytes_per_thread_fp32 = values_per_thread * 4;
  result.mma_per_iteration = static_cast<std::int64_t>(result.accumulators) * (tile.tk / kMmaDim);
  result.threadgroup_flops_per_iteration =
      result.simdgroups * result.mma_per_iteration * kFlopsPerMma;
  return result;
}

SgLayout default_layout(const Tile& tile, int simdgroups) {
  validate_tile(tile);
  if (simdgroups < 1) {
    throw InputError(fmt::format("simdgroups must be at least 1 (got {})", simdgroups));
  }
  std::optional<SgLayout> best;
  double best_ratio = 0;
  // Rows ascending, so on a tie the earlier (fewer rows) layout is kept.
  for (int rows = 1; rows <= simdgroups; ++rows) {
    if (simdgroups % rows != 0) continue;
    const SgLayout candidate{rows, simdgroups / rows};
    if (!fits(tile, candidate)) continue;
    const double block_rows = static_cast<double>(tile.tm) / candidate.rows;
    const double block_cols = static_cast<double>(tile.tn) / candidate.cols;
    const double ratio = std::max(block_rows, block_cols) / std::min(block_rows, block_cols);
    if (!best || ratio < best_ratio) {
      best = candidate;
      best_ratio = ratio;
    }
  }
  if (!best) {
    throw InputError(fmt::format("no grid of {} simdgroups splits tile {} into 8-aligned blocks",
                                 simdgroups, tile_name(tile)));
  }
  return *best;
}

}  // namespace marlin::analytic
