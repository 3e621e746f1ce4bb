#include "tools/cli/tile_tables.h"

namespace marlin::cli {

const std::vector<analytic::Tile>& analysis_tiles() {
  static const std::vector<analytic::Tile> kTiles = {
      {64, 64, 32}, {128, 64, 16}, {32, 128, 32}, {128, 128, 16}, {64, 64, 64}};
  return kTiles;
}

namespace {

VariantRow variant_row(const model::DeviceSpec& device, const analytic::Tile& tile,
                       analytic::KernelVariant variant) {
  VariantRow row;
  row.tile = tile;
  row.variant = variant;
  analytic::BudgetOptions options;
  options.simdgroups = kAnalysisSimdgroups;
  row.budget = analytic::threadgroup_memory_budget(tile, variant, options, device.limits);
  if (row.budget.refused) return row;
  row.occupancy = analytic::launch_occupancy(device, kAnalysisSimdgroups * device.gpu.simd_width,
                                             row.budget.total_bytes);
  if (!row.occupancy.refused && row.occupancy.resident_threadgroups > 0) {
    const analytic::GemmGrid grid =
        analytic::gemm_grid(kWaveExampleDim, kWaveExampleDim, tile.tm, tile.tn);
    row.waves = analytic::compute_waves(grid.threadgroups, row.occupancy.resident_threadgroups,
                                        device.gpu.cores);
  }
  return row;
}

}  // namespace

TileTables compute_tile_tables(const model::DeviceSpec& device) {
  TileTables tables;
  const analytic::RooflineMachine machine = analytic::roofline_machine(device);
  for (const analytic::Tile& tile : analysis_tiles()) {
    for (analytic::KernelVariant variant : {analytic::KernelVariant::kDoubleBufferedSeparate,
                                            analytic::KernelVariant::kFusedDequant}) {
      tables.variants.push_back(variant_row(device, tile, variant));
    }
    TileRow row;
    row.tile = tile;
    row.layout = analytic::analyze_layout(tile, analytic::default_layout(tile, kAnalysisSimdgroups),
                                          device.gpu.simd_width);
    row.fp4 = analytic::iteration_intensity(
        tile, {analytic::WeightFormat::kFp4, analytic::ScaleMode::kNone, 0, false});
    row.fp16 = analytic::iteration_intensity(
        tile, {analytic::WeightFormat::kFp16, analytic::ScaleMode::kNone, 0, false});
    row.fp4_roofline =
        analytic::roofline(machine, static_cast<double>(row.fp4.flops), row.fp4.total_bytes);
    row.fp16_roofline =
        analytic::roofline(machine, static_cast<double>(row.fp16.flops), row.fp16.total_bytes);
    tables.tiles.push_back(row);
  }
  return tables;
}

}  // namespace marlin::cli
