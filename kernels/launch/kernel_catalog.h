// The catalog of GEMM kernel programs: which families exist, which tile configurations each
// is compiled for, how many threads they use, how much threadgroup memory the as-built
// kernel declares, and the Metal name of each instance.
//
// Contract: find_gemm_kernel() throws InputError naming the family or tile that does not
// exist and listing the valid ones. A configuration whose as-built threadgroup memory exceeds
// the device limit is found (it is a real configuration) but reported `refused` by
// check_threadgroup_budget(), as Metal refuses the pipeline; such instances are not compiled.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/host/weight_format.h"
#include "model/analytic/budget.h"
#include "model/analytic/tile.h"

namespace marlin::kernels {

enum class GemmFamily {
  kMarlinFp4,         // marlin_gemm_fp4: double-buffered, B dequantized into threadgroup memory
  kMarlinFusedFp4,    // marlin_gemm_fused_fp4: dequant in registers, per-simdgroup 8x8 staging
  kMarlinFusedU4,     // marlin_gemm_fused_u4: U4B8 (zero 8)
  kMarlinFusedU4Zp,   // marlin_gemm_fused_u4zp: u4 with explicit zero points
  kMarlinFp4Striped,  // marlin_gemm_fp4_striped: 1D stripes, K-parallel slices, reduce dispatch
  kMatmulNaive,       // matmul_f16: one thread per output
  kMatmulTiled16,     // matmul_tiled_f16: 16x16 threadgroup tiles
  kMatmulTiled32,     // matmul_tiled_32x32_f16: 32x32 threadgroup tiles
};

struct GemmKernel {
  GemmFamily family = GemmFamily::kMarlinFusedFp4;
  std::string family_name;      // as on the command line: "marlin_gemm_fused_fp4"
  analytic::Tile tile;          // Marlin kernels; classic tiled: T x T x T; naive: 1 x 1 x K step
  analytic::SgLayout layout;    // Marlin kernels: simdgroups over the output tile
  std::uint32_t threads_x = 0;  // threads per threadgroup (x, y)
  std::uint32_t threads_y = 1;
  WeightFormatKind weights = WeightFormatKind::kFp4E2M1;
  std::string metal_name;              // the compiled instance (host_name), without epilogue
  std::int64_t threadgroup_bytes = 0;  // as built, from the kernel's declarations
  bool compiled = true;                // false: refused by the budget, not instantiated
};

// Family names accepted by find_gemm_kernel, in a fixed order.
const std::vector<std::string>& gemm_family_names();

// The tile configurations the Marlin kernels are compiled for.
const std::vector<analytic::Tile>& marlin_tiles();

// The compiled tile named `name` ("64x64x32"), or nullopt.
std::optional<analytic::Tile> find_marlin_tile(const std::string& name);

// The kernel of `family` at `tile` (ignored by the classic matmuls, which have one size each;
// required for the Marlin families).
GemmKernel find_gemm_kernel(const std::string& family, std::optional<analytic::Tile> tile);

// Threadgroup memory of an as-built Marlin kernel, by its declarations: separate: A and B tiles
// double-buffered with rows padded by 8 halves; fused and striped: one A tile plus an 8x8 half
// staging block per simdgroup.
analytic::BudgetResult as_built_budget(const GemmKernel& kernel, const model::LimitsSpec& limits);

}  // namespace marlin::kernels
