#include "kernels/launch/kernel_catalog.h"

#include <fmt/format.h>

#include "model/common/input_error.h"
#include "model/common/join.h"

namespace marlin::kernels {
namespace {

constexpr int kMarlinSimdgroups = 4;
constexpr int kSeparateRowPadHalves = 8;  // kRowPad in marlin_gemm_fp4.metal

struct FamilyInfo {
  GemmFamily family;
  const char* name;
  const char* metal_prefix;  // instance name = prefix + "_" + tile for the Marlin families
  WeightFormatKind weights;
};

const std::vector<FamilyInfo>& families() {
  static const std::vector<FamilyInfo> kFamilies = {
      {GemmFamily::kMarlinFp4, "marlin_gemm_fp4", "marlin_gemm_fp4", WeightFormatKind::kFp4E2M1},
      {GemmFamily::kMarlinFusedFp4, "marlin_gemm_fused_fp4", "marlin_gemm_fused_fp4",
       WeightFormatKind::kFp4E2M1},
      {GemmFamily::kMarlinFusedU4, "marlin_gemm_fused_u4", "marlin_gemm_fused_u4",
       WeightFormatKind::kU4B8},
      {GemmFamily::kMarlinFusedU4Zp, "marlin_gemm_fused_u4zp", "marlin_gemm_fused_u4zp",
       WeightFormatKind::kU4ZeroPoint},
      {GemmFamily::kMarlinFp4Striped, "marlin_gemm_fp4_striped", "marlin_gemm_fp4_striped",
       WeightFormatKind::kFp4E2M1},
      {GemmFamily::kMatmulNaive, "matmul_f16", "matmul_f16", WeightFormatKind::kFp16},
      {GemmFamily::kMatmulTiled16, "matmul_tiled_f16", "matmul_tiled_f16", WeightFormatKind::kFp16},
      {GemmFamily::kMatmulTiled32, "matmul_tiled_32x32_f16", "matmul_tiled_32x32_f16",
       WeightFormatKind::kFp16},
  };
  return kFamilies;
}

bool is_marlin(GemmFamily family) {
  return family != GemmFamily::kMatmulNaive && family != GemmFamily::kMatmulTiled16 &&
         family != GemmFamily::kMatmulTiled32;
}

std::string tile_list() {
  std::string list;
  for (const analytic::Tile& tile : marlin_tiles()) {
    append_item(list, ", ", analytic::tile_name(tile));
  }
  return list;
}

GemmKernel classic_kernel(const FamilyInfo& info) {
  GemmKernel kernel;
  kernel.family = info.family;
  kernel.family_name = info.name;
  kernel.weights = info.weights;
  kernel.metal_name = info.metal_prefix;
  const int t = info.family == GemmFamily::kMatmulTiled16   ? 16
                : info.family == GemmFamily::kMatmulTiled32 ? 32
                                                            : 0;
  if (t == 0) {
    kernel.threads_x = 16;  // any shape works; 16 x 16 threads per threadgroup
    kernel.threads_y = 16;
    kernel.tile = {16, 16, 1};
    return kernel;
  }
  kernel.tile = {t, t, t};
  kernel.threads_x = static_cast<std::uint32_t>(t);
  kernel.threads_y = static_cast<std::uint32_t>(t);
  kernel.threadgroup_bytes = 2LL * t * t * 2;  // a_tile and b_tile, half
  return kernel;
}

}  // namespace

const std::vector<std::string>& gemm_family_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const FamilyInfo& info : families()) names.emplace_back(info.name);
    return names;
  }();
  return kNames;
}

const std::vector<analytic::Tile>& marlin_tiles() {
  static const std::vector<analytic::Tile> kTiles = {
      {64, 64, 32}, {128, 64, 16}, {32, 128, 32}, {128, 128, 16}, {64, 64, 64}};
  return kTiles;
}

std::optional<analytic::Tile> find_marlin_tile(const std::string& name) {
  for (const analytic::Tile& tile : marlin_tiles()) {
    if (analytic::tile_name(tile) == name) return tile;
  }
  return std::nullopt;
}

GemmKernel find_gemm_kernel(const std::string& family, std::optional<analytic::Tile> tile) {
  const FamilyInfo* info = nullptr;
  for (const FamilyInfo& candidate : families()) {
    if (family == candidate.name) info = &candidate;
  }
  if (info == nullptr) {
    std::string names;
    for (const std::string& name : gemm_family_names()) append_item(names, ", ", name);
    throw InputError(fmt::format("unknown kernel '{}'; the kernels are: {}", family, names));
  }
  if (!is_marlin(info->family)) return classic_kernel(*info);
  if (!tile) {
    throw InputError(fmt::format("{} needs a tile (--tile MxNxK): one of {}", family, tile_list()));
  }
  bool offered = false;
  for (const analytic::Tile& t : marlin_tiles()) {
    offered = offered || (t.tm == tile->tm && t.tn == tile->tn && t.tk == tile->tk);
  }
  if (!offered) {
    throw InputError(fmt::format("{} is not compiled for tile {}; the tiles are: {}", family,
                                 analytic::tile_name(*tile), tile_list()));
  }
  GemmKernel kernel;
  kernel.family = info->family;
  kernel.family_name = info->name;
  kernel.tile = *tile;
  kernel.layout = analytic::default_layout(*tile, kMarlinSimdgroups);
  kernel.threads_x = kMarlinSimdgroups * 32;
  kernel.weights = info->weights;
  kernel.metal_name = fmt::format("{}_{}", info->metal_prefix, analytic::tile_name(*tile));
  model::LimitsSpec unlimited;
  unlimited.max_threadgroup_memory_bytes = std::int64_t{1} << 40;
  kernel.threadgroup_bytes = as_built_budget(kernel, unlimited).total_bytes;
  // The double-buffered 64x64x64 instance exceeds every Apple GPU's 32 KiB and is not compiled.
  kernel.compiled = !(info->family == GemmFamily::kMarlinFp4 && tile->tk == 64);
  return kernel;
}

analytic::BudgetResult as_built_budget(const GemmKernel& kernel, const model::LimitsSpec& limits) {
  analytic::BudgetOptions options;
  options.simdgroups = kMarlinSimdgroups;
  const bool separate = kernel.family == GemmFamily::kMarlinFp4;
  options.row_padding_halves = separate ? kSeparateRowPadHalves : 0;
  return analytic::threadgroup_memory_budget(kernel.tile,
                                             separate
                                                 ? analytic::KernelVariant::kDoubleBufferedSeparate
                                                 : analytic::KernelVariant::kFusedDequant,
                                             options, limits);
}

}  // namespace marlin::kernels
