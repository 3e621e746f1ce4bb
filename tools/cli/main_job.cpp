#include "tools/cli/main_job.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "model/device/profile_loader.h"
#include "tools/cli/device_report.h"
#include "tools/cli/format.h"
#include "tools/cli/occupancy_report.h"
#include "tools/cli/simulated_claims.h"
#include "tools/cli/table.h"
#include "tools/cli/tile_tables.h"
#include "tools/cli/validation_output.h"

namespace po = boost::program_options;

namespace marlin::cli {
namespace {

std::string variant_name(analytic::KernelVariant variant) {
  return std::string(analytic::kernel_variant_name(variant));
}

void print_budgets(std::ostream& out, const TileTables& tables) {
  out << "\nthreadgroup-memory budget (analysis form: A and B tiles, no padding)\n";
  TextTable table({"tile", "variant", "A bytes", "B bytes", "total", "of limit", "verdict"});
  for (const VariantRow& row : tables.variants) {
    const auto& parts = row.budget.components;
    table.add_row(
        {analytic::tile_name(row.tile), variant_name(row.variant), format_count(parts.at(0).bytes),
         format_count(parts.at(1).bytes), format_count(row.budget.total_bytes),
         format_percent(row.budget.percent_of_limit), row.budget.refused ? "refused" : "fits"});
  }
  table.print(out);
}

void print_layouts(std::ostream& out, const TileTables& tables) {
  out << fmt::format("\nsimdgroup layouts ({} simdgroups, most square block per simdgroup)\n",
                     kAnalysisSimdgroups);
  TextTable table(
      {"tile", "grid", "block", "accumulators", "B/thread fp16", "B/thread fp32", "MMA/iter/SG"});
  for (const TileRow& row : tables.tiles) {
    const analytic::LayoutResult& l = row.layout;
    table.add_row({analytic::tile_name(row.tile),
                   fmt::format("{}x{}", l.layout.rows, l.layout.cols),
                   fmt::format("{}x{}", l.block_rows, l.block_cols), std::to_string(l.accumulators),
                   format_fixed(l.bytes_per_thread_fp16, 0),
                   format_fixed(l.bytes_per_thread_fp32, 0), format_count(l.mma_per_iteration)});
  }
  table.print(out);
}

void print_occupancy_waves(std::ostream& out, const model::DeviceSpec& device,
                           const TileTables& tables) {
  out << fmt::format(
      "\noccupancy ({} threads per threadgroup) and waves of a {}x{} output on {} cores\n",
      kAnalysisSimdgroups * device.gpu.simd_width, kWaveExampleDim, kWaveExampleDim,
      device.gpu.cores);
  TextTable table({"tile", "variant", "TG memory", "TGs/core", "threads/core", "occupancy",
                   "bound by", "TGs", "waves", "tail"});
  for (const VariantRow& row : tables.variants) {
    if (row.budget.refused) {
      table.add_row({analytic::tile_name(row.tile), variant_name(row.variant),
                     format_count(row.budget.total_bytes), "-", "-", "-", "refused", "-", "-",
                     "-"});
      continue;
    }
    const analytic::OccupancyResult& o = row.occupancy;
    const std::string waves = row.waves ? format_count(row.waves->waves) : "-";
    const std::string tail = row.waves ? format_percent(row.waves->tail_fraction * 100) : "-";
    const std::string total = row.waves ? format_count(row.waves->total_threadgroups) : "-";
    table.add_row({analytic::tile_name(row.tile), variant_name(row.variant),
                   format_count(row.budget.total_bytes), format_count(o.resident_threadgroups),
                   format_count(o.resident_threadgroups * o.allocated_threads_per_threadgroup),
                   format_percent(o.occupancy_percent), binding_names(o.binding), total, waves,
                   tail});
  }
  table.print(out);
}

void print_intensity(std::ostream& out, const TileTables& tables) {
  out << "\narithmetic intensity per main-loop iteration (scales ignored, as in the analysis)\n";
  TextTable table({"tile", "FLOPs", "A bytes", "B fp4", "FLOP/B fp4", "bound fp4", "B fp16",
                   "FLOP/B fp16", "bound fp16", "fp4/fp16"});
  for (const TileRow& row : tables.tiles) {
    table.add_row({analytic::tile_name(row.tile), format_count(row.fp4.flops),
                   format_count(static_cast<std::int64_t>(row.fp4.a_bytes)),
                   format_count(static_cast<std::int64_t>(row.fp4.b_bytes)),
                   format_fixed(row.fp4.intensity, 2),
                   std::string(analytic::bound_name(row.fp4_roofline.bound)),
                   format_count(static_cast<std::int64_t>(row.fp16.b_bytes)),
                   format_fixed(row.fp16.intensity, 2),
                   std::string(analytic::bound_name(row.fp16_roofline.bound)),
                   format_fixed(row.fp4.intensity / row.fp16.intensity, 2) + "x"});
  }
  table.print(out);
  if (!tables.tiles.empty()) {
    out << fmt::format(
        "machine balance: {:.2f} FLOP/B against the FMA peak, {:.2f} against the "
        "simdgroup-matmul peak\n",
        tables.tiles.front().fp4_roofline.machine_balance,
        tables.tiles.front().fp4_roofline.matmul_balance);
  }
}

nlohmann::json tables_json(const TileTables& tables) {
  nlohmann::json variants = nlohmann::json::array();
  for (const VariantRow& row : tables.variants) {
    nlohmann::json entry = {{"tile", analytic::tile_name(row.tile)},
                            {"variant", variant_name(row.variant)},
                            {"budget_bytes", row.budget.total_bytes},
                            {"percent_of_limit", row.budget.percent_of_limit},
                            {"refused", row.budget.refused}};
    if (!row.budget.refused) {
      entry["resident_threadgroups"] = row.occupancy.resident_threadgroups;
      entry["resident_simdgroups"] = row.occupancy.resident_simdgroups;
      entry["occupancy_percent"] = row.occupancy.occupancy_percent;
      entry["bound_by"] = binding_names(row.occupancy.binding);
    }
    if (row.waves) {
      entry["waves_4096x4096"] = {{"threadgroups", row.waves->total_threadgroups},
                                  {"slots", row.waves->slots},
                                  {"waves", row.waves->waves},
                                  {"tail_fraction", row.waves->tail_fraction}};
    }
    variants.push_back(entry);
  }
  nlohmann::json tiles = nlohmann::json::array();
  for (const TileRow& row : tables.tiles) {
    tiles.push_back(
        {{"tile", analytic::tile_name(row.tile)},
         {"layout", fmt::format("{}x{}", row.layout.layout.rows, row.layout.layout.cols)},
         {"accumulators_per_simdgroup", row.layout.accumulators},
         {"bytes_per_thread_fp16", row.layout.bytes_per_thread_fp16},
         {"bytes_per_thread_fp32", row.layout.bytes_per_thread_fp32},
         {"mma_per_iteration_per_simdgroup", row.layout.mma_per_iteration},
         {"flops_per_iteration", row.fp4.flops},
         {"intensity_fp4", row.fp4.intensity},
         {"intensity_fp16", row.fp16.intensity},
         {"bound_fp4", analytic::bound_name(row.fp4_roofline.bound)},
         {"bound_fp16", analytic::bound_name(row.fp16_roofline.bound)}});
  }
  return {{"variants", variants}, {"tiles", tiles}};
}

}  // namespace

int run_main_job(const std::vector<std::string>& args, Streams streams) {
  CommonFlags common;
  std::string report_path;
  bool simulate = false;
  po::options_description options("main job flags");
  // clang-format off
  options.add_options()
      ("report", po::value<std::string>(&report_path),
       "where to write the full validation report (default: "
       "marlin-sim-validation-<device>.md in the current directory)")
      ("simulate", po::bool_switch(&simulate),
       "also answer the configuration-selection guide by sampled simulation");
  // clang-format on
  add_common_flags(options, common);
  parse_flags("marlin-sim", args, options);
  if (common.help) {
    print_help(streams.out, "marlin-sim [--device NAME|PATH] [--report FILE] [--simulate] [--json]",
               "The main job: the device summary, the tile-sizing analysis's tables (budgets,\n"
               "layouts, occupancy, waves, intensity) computed for the device, and the summary of\n"
               "the claims validation, whose full report goes to --report.\n"
               "`marlin-sim --help` lists the verbs.",
               options);
    return 0;
  }
  const model::DeviceSpec device = model::load_device(common.device);
  const TileTables tables = compute_tile_tables(device);
  validate::ValidationReport validation = validate_seed_claims(device, "");
  if (report_path.empty()) report_path = fmt::format("marlin-sim-validation-{}.md", device.name);
  std::optional<std::vector<GuideAnswer>> guide;
  if (simulate) {
    ClaimMeasurements measured = measure_claims(device, streams.err);
    apply_simulated_claims(validation, measured);
    guide = std::move(measured.guide);
  }
  write_report_file(validation, report_path, guide ? &*guide : nullptr);
  if (common.json) {
    nlohmann::json json = {{"device", device_summary_json(device)},
                           {"tile_sizing", tables_json(tables)},
                           {"validation", validate::to_json(validation)},
                           {"report", report_path}};
    if (guide) json["selection_guide"] = guide_json(*guide);
    streams.out << json.dump(2) << '\n';
    return 0;
  }
  print_device_summary(streams.out, device);
  print_budgets(streams.out, tables);
  print_layouts(streams.out, tables);
  print_occupancy_waves(streams.out, device, tables);
  print_intensity(streams.out, tables);
  streams.out << "\nvalidation of the seed analyses on " << device.name << "\n";
  validate::write_summary(streams.out, validation);
  if (guide) print_guide_summary(streams.out, *guide);
  streams.out << "\nfull report: " << report_path << '\n';
  return 0;
}

}  // namespace marlin::cli
