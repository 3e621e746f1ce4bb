// `marlin-sim intensity`: arithmetic intensity of a GEMM tile configuration per main-loop
// iteration and, with --m/--n/--k, of the whole problem against DRAM, on the device roofline.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "model/analytic/intensity.h"
#include "model/common/input_error.h"
#include "model/device/profile_loader.h"
#include "tools/cli/args.h"
#include "tools/cli/format.h"
#include "tools/cli/plots.h"
#include "tools/cli/table.h"
#include "tools/cli/verbs.h"

namespace po = boost::program_options;

namespace marlin::cli {
namespace {

struct IntensityFlags {
  std::string tile;
  std::string weights = "fp4";
  std::string group_size;
  bool zero_points = false;
  std::string m, n, k;
  std::string plot;
};

analytic::WeightSpec make_weights(const IntensityFlags& flags) {
  analytic::WeightSpec weights;
  if (flags.weights == "fp16") {
    weights.format = analytic::WeightFormat::kFp16;
  } else if (flags.weights == "fp4") {
    weights.format = analytic::WeightFormat::kFp4;
  } else if (flags.weights == "u4") {
    weights.format = analytic::WeightFormat::kU4;
  } else {
    throw InputError(fmt::format("--weights: expected fp16, fp4 or u4, got '{}'", flags.weights));
  }
  std::string group = flags.group_size;
  if (group.empty()) group = weights.format == analytic::WeightFormat::kFp16 ? "none" : "128";
  if (group == "none") {
    weights.scales = analytic::ScaleMode::kNone;
  } else if (group == "column") {
    weights.scales = analytic::ScaleMode::kPerColumn;
  } else {
    weights.scales = analytic::ScaleMode::kPerGroup;
    weights.group_size = static_cast<int>(parse_integer("group-size", group, 1, 1 << 24));
  }
  weights.zero_points = flags.zero_points;
  if (weights.format == analytic::WeightFormat::kFp16 &&
      weights.scales != analytic::ScaleMode::kNone) {
    throw InputError("--group-size: fp16 weights have no scales; use --group-size none");
  }
  analytic::validate_weights(weights);
  return weights;
}

nlohmann::json roofline_json(const analytic::Roofline& r) {
  return {{"intensity_flops_per_byte", r.intensity},
          {"machine_balance_flops_per_byte", r.machine_balance},
          {"attainable_flops", r.attainable_flops},
          {"bound", analytic::bound_name(r.bound)},
          {"matmul_balance_flops_per_byte", r.matmul_balance},
          {"attainable_matmul_flops", r.attainable_matmul_flops},
          {"matmul_bound", analytic::bound_name(r.matmul_bound)},
          {"compute_time_s", r.compute_time_s},
          {"memory_time_s", r.memory_time_s},
          {"lower_bound_time_s", r.lower_bound_time_s}};
}

void print_roofline(std::ostream& out, const analytic::Roofline& r) {
  print_key_values(
      out, {{"intensity", fmt::format("{:.2f} FLOP/B", r.intensity)},
            {"machine balance", fmt::format("{:.2f} FLOP/B (FMA peak); {:.2f} FLOP/B (matmul peak)",
                                            r.machine_balance, r.matmul_balance)},
            {"bound", fmt::format("{} (FMA peak), {} (matmul peak)", analytic::bound_name(r.bound),
                                  analytic::bound_name(r.matmul_bound))},
            {"attainable", format_rate(r.attainable_flops, "FLOP/s")}});
}

}  // namespace

int run_intensity(const std::vector<std::string>& args, Streams streams) {
  CommonFlags common;
  IntensityFlags flags;
  po::options_description options("intensity flags");
  // clang-format off
  options.add_options()
      ("tile", po::value<std::string>(&flags.tile), "threadgroup tile MxNxK, e.g. 64x64x32")
      ("weights", po::value<std::string>(&flags.weights)->default_value("fp4"),
       "weight format: fp16, fp4 (E2M1) or u4")
      ("group-size", po::value<std::string>(&flags.group_size),
       "scale group along K: a number, 'column' (one per column) or 'none' "
       "(default 128 for fp4/u4, none for fp16)")
      ("zero-points", po::bool_switch(&flags.zero_points), "u4 with 4-bit zero points")
      ("m", po::value<std::string>(&flags.m), "rows of A and C (whole-problem view)")
      ("n", po::value<std::string>(&flags.n), "columns of B and C")
      ("k", po::value<std::string>(&flags.k), "reduction length")
      ("plot", po::value<std::string>(&flags.plot), "write roofline.svg to this directory");
  // clang-format on
  add_common_flags(options, common);
  const po::variables_map vm = parse_flags("intensity", args, options);
  if (common.help) {
    print_help(streams.out,
               "marlin-sim intensity --tile MxNxK [--weights fp16|fp4|u4] [--group-size G] "
               "[--m M --n N --k K] [--device D] [--json]",
               "FLOPs per byte of one main-loop iteration of the tile (the tile-sizing analysis's\n"
               "form) and, with --m/--n/--k, of the whole GEMM against DRAM, placed on the\n"
               "device's roofline.",
               options);
    return 0;
  }
  require_flag(vm, "tile");
  const analytic::Tile tile = parse_tile("tile", flags.tile);
  const analytic::WeightSpec weights = make_weights(flags);
  const int shape_flags = static_cast<int>(vm.count("m") + vm.count("n") + vm.count("k"));
  if (shape_flags != 0 && shape_flags != 3) {
    throw InputError("--m, --n and --k go together: give all three or none");
  }
  analytic::ProblemShape shape;
  if (shape_flags == 3) {
    shape = {parse_integer("m", flags.m, 1, 1 << 24), parse_integer("n", flags.n, 1, 1 << 24),
             parse_integer("k", flags.k, 1, 1 << 24)};
  }
  const model::DeviceSpec device = model::load_device(common.device);
  const analytic::RooflineMachine machine = analytic::roofline_machine(device);

  if (!flags.plot.empty()) plot_roofline(device, tile, weights, flags.plot);
  const analytic::IterationIntensity it = analytic::iteration_intensity(tile, weights);
  const analytic::Roofline it_roof =
      analytic::roofline(machine, static_cast<double>(it.flops), it.total_bytes);
  nlohmann::json json = {
      {"device", device.name},
      {"tile", analytic::tile_name(tile)},
      {"weights", analytic::weight_format_name(weights.format)},
      {"iteration",
       {{"flops", it.flops},
        {"a_bytes", it.a_bytes},
        {"b_bytes", it.b_bytes},
        {"scale_bytes", it.scale_bytes},
        {"zero_point_bytes", it.zero_point_bytes},
        {"total_bytes", it.total_bytes},
        {"intensity", it.intensity},
        {"intensity_without_scales", it.intensity_without_scales},
        {"roofline", roofline_json(it_roof)}}},
  };
  if (!common.json) {
    streams.out << fmt::format("device {}, tile {}, {} weights\n\nper main-loop iteration:\n",
                               device.name, analytic::tile_name(tile),
                               analytic::weight_format_name(weights.format));
    TextTable table({"FLOPs", "A bytes", "B bytes", "scale bytes", "zero bytes", "FLOP/B",
                     "FLOP/B without scales"});
    table.add_row({format_count(it.flops), format_fixed(it.a_bytes, 0), format_fixed(it.b_bytes, 0),
                   format_fixed(it.scale_bytes, 1), format_fixed(it.zero_point_bytes, 1),
                   format_fixed(it.intensity, 2), format_fixed(it.intensity_without_scales, 2)});
    table.print(streams.out);
    streams.out << '\n';
    print_roofline(streams.out, it_roof);
  }
  if (shape_flags == 3) {
    const analytic::ProblemIntensity p = analytic::problem_intensity(shape, weights);
    const analytic::Roofline p_roof = analytic::roofline(machine, static_cast<double>(p.flops),
                                                         static_cast<double>(p.total_bytes));
    json["problem"] = {{"m", shape.m},
                       {"n", shape.n},
                       {"k", shape.k},
                       {"flops", p.flops},
                       {"a_bytes", p.a_bytes},
                       {"b_bytes", p.b_bytes},
                       {"scale_bytes", p.scale_bytes},
                       {"zero_point_bytes", p.zero_point_bytes},
                       {"c_bytes", p.c_bytes},
                       {"total_bytes", p.total_bytes},
                       {"intensity", p.intensity},
                       {"roofline", roofline_json(p_roof)}};
    if (!common.json) {
      streams.out << fmt::format("\nwhole problem M={} N={} K={} against DRAM:\n", shape.m, shape.n,
                                 shape.k);
      print_key_values(
          streams.out,
          {{"FLOPs", format_count(p.flops)},
           {"bytes", fmt::format("{} (A {}, B {}, scales {}, zeros {}, C {})",
                                 format_count(p.total_bytes), format_count(p.a_bytes),
                                 format_count(p.b_bytes), format_count(p.scale_bytes),
                                 format_count(p.zero_point_bytes), format_count(p.c_bytes))},
           {"lower-bound time", format_seconds(p_roof.lower_bound_time_s)}});
      print_roofline(streams.out, p_roof);
    }
  }
  if (common.json) streams.out << json.dump(2) << '\n';
  return 0;
}

}  // namespace marlin::cli
