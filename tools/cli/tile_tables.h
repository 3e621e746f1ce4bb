// The tile-sizing tables for one device: the five tile configurations of the analysis,
// each kernel variant, with budgets, layouts, occupancy, waves and intensity. Shared by the
// main job and its tests; computed here, printed by main_job.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/analytic/budget.h"
#include "model/analytic/intensity.h"
#include "model/analytic/occupancy.h"
#include "model/analytic/waves.h"
#include "model/device/device_spec.h"

namespace marlin::cli {

// The tile configurations the tile-sizing analysis studies.
const std::vector<analytic::Tile>& analysis_tiles();

inline constexpr int kAnalysisSimdgroups = 4;          // 128 threads per threadgroup
inline constexpr std::int64_t kWaveExampleDim = 4096;  // the analysis's 4096 x 4096 GEMM

struct VariantRow {
  analytic::Tile tile;
  analytic::KernelVariant variant = analytic::KernelVariant::kFusedDequant;
  analytic::BudgetResult budget;
  analytic::OccupancyResult occupancy;        // empty limits when the budget is refused
  std::optional<analytic::WaveResult> waves;  // 4096 x 4096 output; none when not resident
};

struct TileRow {
  analytic::Tile tile;
  analytic::LayoutResult layout;  // default layout of kAnalysisSimdgroups
  analytic::IterationIntensity fp4;
  analytic::IterationIntensity fp16;
  analytic::Roofline fp4_roofline;
  analytic::Roofline fp16_roofline;
};

struct TileTables {
  std::vector<VariantRow> variants;
  std::vector<TileRow> tiles;
};

TileTables compute_tile_tables(const model::DeviceSpec& device);

}  // namespace marlin::cli
