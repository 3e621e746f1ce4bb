// The pictures of the verbs that have one (`--plot DIR`), as SVG files in DIR.
#pragma once

#include <string>
#include <vector>

#include "model/analytic/intensity.h"
#include "model/analytic/occupancy.h"
#include "model/device/device_spec.h"
#include "tools/cli/kernel_run.h"
#include "tools/cli/sweep.h"

namespace marlin::cli {

// occupancy_tg_memory.svg and occupancy_threads.svg: occupancy against threadgroup memory and
// against threadgroup size, the query's configuration marked.
void plot_occupancy(const model::DeviceSpec& device, const analytic::OccupancyQuery& query,
                    const std::string& dir);

// roofline.svg: attainable FLOP/s against intensity (FMA and simdgroup-matmul roofs), with the
// analysis's tile configurations and `tile` placed by their per-iteration intensity.
void plot_roofline(const model::DeviceSpec& device, const analytic::Tile& tile,
                   const analytic::WeightSpec& weights, const std::string& dir);

// time_vs_m.svg: predicted time against M, one line per configuration (first N, K, group).
void plot_sweep(const SweepSpec& spec, const std::vector<SweepResult>& results,
                const std::string& dir);

// stall_breakdown.svg: the share of simdgroup-slot cycles of each state.
void plot_breakdown(const KernelRunReport& report, const std::string& dir);

}  // namespace marlin::cli
