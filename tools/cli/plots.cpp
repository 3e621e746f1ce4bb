#include "tools/cli/plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "tools/cli/tile_tables.h"
#include "tools/plot/svg_chart.h"

namespace marlin::cli {
namespace {

plot::Series sweep_series(const std::string& name,
                          const std::vector<analytic::SweepPoint>& points) {
  plot::Series series{name, {}, true};
  for (const analytic::SweepPoint& p : points) {
    if (!p.refused) series.points.emplace_back(static_cast<double>(p.x), p.occupancy_percent);
  }
  return series;
}

}  // namespace

void plot_occupancy(const model::DeviceSpec& device, const analytic::OccupancyQuery& query,
                    const std::string& dir) {
  const analytic::OccupancyDeviceSpec spec = analytic::occupancy_spec_of(device);
  const analytic::OccupancyResult here = analytic::evaluate_occupancy(query, spec);
  const std::string label = fmt::format("{} threads, {} B", query.threads_per_threadgroup,
                                        query.threadgroup_memory_bytes);
  plot::LineChart memory{
      fmt::format("{}: occupancy against threadgroup memory ({} threads)", device.name,
                  query.threads_per_threadgroup),
      "threadgroup memory per threadgroup (bytes)",
      "occupancy (% of simdgroup slots)",
      false,
      false,
      {sweep_series("occupancy", analytic::sweep_threadgroup_memory(query, spec, 256))},
      {}};
  plot::LineChart threads{fmt::format("{}: occupancy against threadgroup size ({} B)", device.name,
                                      query.threadgroup_memory_bytes),
                          "threads per threadgroup",
                          "occupancy (% of simdgroup slots)",
                          false,
                          false,
                          {sweep_series("occupancy", analytic::sweep_threads(query, spec))},
                          {}};
  if (!here.refused) {
    memory.markers.push_back(
        {static_cast<double>(query.threadgroup_memory_bytes), here.occupancy_percent, label});
    threads.markers.push_back(
        {static_cast<double>(query.threads_per_threadgroup), here.occupancy_percent, label});
  }
  plot::write_svg(dir, "occupancy_tg_memory.svg", plot::render_line_chart(memory));
  plot::write_svg(dir, "occupancy_threads.svg", plot::render_line_chart(threads));
}

void plot_roofline(const model::DeviceSpec& device, const analytic::Tile& tile,
                   const analytic::WeightSpec& weights, const std::string& dir) {
  const analytic::RooflineMachine machine = analytic::roofline_machine(device);
  plot::LineChart chart{fmt::format("{}: roofline ({} weights, per main-loop iteration)",
                                    device.name, analytic::weight_format_name(weights.format)),
                        "arithmetic intensity (FLOP/B)",
                        "attainable (TFLOP/s)",
                        true,
                        true,
                        {},
                        {}};
  auto roof = [&](const std::string& name, double peak) {
    plot::Series series{name, {}, true};
    const double balance = peak / machine.dram_bytes_per_s;
    for (const double ai : {balance / 100, balance, balance * 100}) {
      series.points.emplace_back(ai, std::min(peak, ai * machine.dram_bytes_per_s) / 1e12);
    }
    return series;
  };
  chart.series.push_back(roof("FMA peak", machine.peak_flops));
  chart.series.push_back(roof("simdgroup-matmul peak", machine.peak_matmul_flops));
  std::vector<analytic::Tile> tiles = analysis_tiles();
  const bool listed = std::any_of(tiles.begin(), tiles.end(), [&](const analytic::Tile& t) {
    return t.tm == tile.tm && t.tn == tile.tn && t.tk == tile.tk;
  });
  if (!listed) tiles.push_back(tile);
  for (const analytic::Tile& t : tiles) {
    const analytic::IterationIntensity it = analytic::iteration_intensity(t, weights);
    const double attainable = std::min(machine.peak_flops, it.intensity * machine.dram_bytes_per_s);
    chart.markers.push_back({it.intensity, attainable / 1e12, analytic::tile_name(t)});
  }
  plot::write_svg(dir, "roofline.svg", plot::render_line_chart(chart));
}

void plot_sweep(const SweepSpec& spec, const std::vector<SweepResult>& results,
                const std::string& dir) {
  std::map<std::string, plot::Series> lines;
  double lo = 0;
  double hi = 0;
  for (const SweepResult& r : results) {
    const SweepConfig& c = r.config;
    if (r.refused || !at_first_shape(spec, c)) continue;
    const std::string name =
        c.tile.tm == 0 ? c.kernel
                       : fmt::format("{} {}{}", c.kernel, analytic::tile_name(c.tile),
                                     c.k_parallel > 1 ? fmt::format(" P={}", c.k_parallel) : "");
    lines[name].name = name;
    lines[name].points.emplace_back(static_cast<double>(c.m), r.seconds * 1e6);
    lo = lo == 0 ? static_cast<double>(c.m) : std::min(lo, static_cast<double>(c.m));
    hi = std::max(hi, static_cast<double>(c.m));
  }
  plot::LineChart chart{
      fmt::format("predicted time against M (N={}, K={})", spec.ns.front(), spec.ks.front()),
      "M (rows)",
      "predicted time (us)",
      hi >= 10 * lo,
      false,
      {},
      {}};
  for (auto& [name, series] : lines) chart.series.push_back(std::move(series));
  plot::write_svg(dir, "time_vs_m.svg", plot::render_line_chart(chart));
}

void plot_breakdown(const KernelRunReport& report, const std::string& dir) {
  plot::BarChart chart{fmt::format("{}: where the time goes", report.kernel.metal_name),
                       "share of simdgroup-slot cycles (%)",
                       {}};
  const std::int64_t total = report.timing.breakdown.total();
  for (std::size_t i = 0; i < timing::kStallClassCount; ++i) {
    const auto stall = static_cast<timing::StallClass>(i);
    const double share =
        total == 0 ? 0.0 : 100.0 * static_cast<double>(report.timing.breakdown[stall]) / total;
    chart.bars.emplace_back(std::string(timing::stall_class_name(stall)), share);
  }
  plot::write_svg(dir, "stall_breakdown.svg", plot::render_bar_chart(chart));
}

}  // namespace marlin::cli
