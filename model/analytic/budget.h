// Threadgroup-memory budgets of the two kernel variants of the tile-sizing analysis, and the
// register cost of a simdgroup layout (accumulators per simdgroup, bytes per thread).
//
// Contract: plain structs; InputError on tiles that are not multiples of 8, layouts that do not
// divide the tile into 8-aligned blocks, and non-positive options. A budget over the device's
// per-threadgroup limit is reported as refused (Metal refuses the pipeline); a budget exactly at
// the limit fits.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/analytic/tile.h"
#include "model/device/device_spec.h"

namespace marlin::analytic {

enum class KernelVariant {
  kDoubleBufferedSeparate,  // A[2][tm][tk] and dequantized B[2][tk][tn], all half
  kFusedDequant,            // A[tm][tk] half and per-simdgroup [8][8] half staging for B
};

std::string_view kernel_variant_name(KernelVariant variant);  // "separate", "fused"

struct BudgetOptions {
  int row_padding_halves = 0;  // halves added to every row of every threadgroup array
  int simdgroups = 4;          // simdgroups per threadgroup (fused staging count)
};

struct BudgetComponent {
  std::string name;   // "A tiles", "B tiles", "A tile", "B staging"
  std::string shape;  // e.g. "2 x 64 x (32+0) half"
  std::int64_t bytes = 0;
};

struct BudgetResult {
  KernelVariant variant = KernelVariant::kFusedDequant;
  std::vector<BudgetComponent> components;
  std::int64_t total_bytes = 0;
  std::int64_t limit_bytes = 0;     // max_threadgroup_memory_bytes of the device
  double percent_of_limit = 0;      // total / limit * 100
  std::int64_t headroom_bytes = 0;  // limit - total (negative when over)
  bool refused = false;             // total > limit
  std::string refusal_reason;
};

BudgetResult threadgroup_memory_budget(const Tile& tile, KernelVariant variant,
                                       const BudgetOptions& options,
                                       const model::LimitsSpec& limits);

// Simdgroups arranged as a rows x cols grid over the tm x tn output tile.
struct SgLayout {
  int rows = 1;
  int cols = 1;
};

inline constexpr std::int64_t kFlopsPerMma =
    std::int64_t{2} * 8 * 8 * 8;  // one 8x8x8 multiply-accumulate

struct LayoutResult {
  SgLayout layout;
  int simdgroups = 0;    // rows * cols
  int block_rows = 0;    // output rows per simdgroup: tm / rows
  int block_cols = 0;    // output columns per simdgroup: tn / cols
  int accumulators = 0;  // 8x8 accumulators per simdgroup: (block_rows/8) * (block_cols/8)
  double bytes_per_thread_fp16 = 0;    // accumulators * 64 * 2 / simd_width
  double bytes_per_thread_fp32 = 0;    // accumulators * 64 * 4 / simd_width
  std::int64_t mma_per_iteration = 0;  // per simdgroup per main-loop iteration: acc * tk / 8
  std::int64_t threadgroup_flops_per_iteration = 0;  // simdgroups * mma * kFlopsPerMma
};

// Throws InputError when the layout does not split the tile into blocks that are multiples of
// 8, or simd_width < 1.
LayoutResult analyze_layout(const Tile& tile, SgLayout layout, int simd_width);

// The rows x cols = simdgroups grid whose per-simdgroup block is most square (smallest
// long/short side ratio); ties go to fewer rows (simdgroups side by side along N, so no two
// simdgroups dequantize the same B columns). Throws InputError when no grid fits.
SgLayout default_layout(const Tile& tile, int simdgroups);

}  // namespace marlin::analytic
