// `marlin-sim occupancy`: resident threadgroups per core for one threadgroup shape, the limit
// that binds, the next step, and sweeps over one resource.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "model/common/input_error.h"
#include "model/device/device_names.h"
#include "model/device/profile_loader.h"
#include "tools/cli/args.h"
#include "tools/cli/occupancy_report.h"
#include "tools/cli/plots.h"
#include "tools/cli/verbs.h"

namespace po = boost::program_options;

namespace marlin::cli {
namespace {

struct OccupancyFlags {
  std::string threads;
  std::string tg_memory = "0";
  std::string registers;
  std::string sweep;
  std::string step;
  std::string plot;
};

analytic::OccupancyQuery make_query(const po::variables_map& vm, const OccupancyFlags& flags,
                                    const model::DeviceSpec& device) {
  analytic::OccupancyQuery query;
  const bool sweeping_threads = flags.sweep == "threads";
  if (!sweeping_threads) require_flag(vm, "threads");
  query.threads_per_threadgroup =
      sweeping_threads && flags.threads.empty()
          ? device.gpu.simd_width
          : static_cast<int>(parse_integer("threads", flags.threads, 1, 1 << 20));
  query.threadgroup_memory_bytes = parse_byte_count("tg-memory", flags.tg_memory);
  if (!flags.registers.empty()) {
    query.registers_per_thread =
        static_cast<int>(parse_integer("registers", flags.registers, 1, 1 << 16));
  }
  return query;
}

int run_sweep(const OccupancyFlags& flags, const CommonFlags& common,
              const analytic::OccupancyQuery& query, const analytic::OccupancyDeviceSpec& spec,
              Streams streams) {
  std::vector<analytic::SweepPoint> points;
  std::string x_name;
  if (flags.sweep == "threads") {
    points = analytic::sweep_threads(query, spec);
    x_name = "threads";
  } else if (flags.sweep == "tg-memory") {
    const std::int64_t step = flags.step.empty() ? analytic::kDefaultTgMemorySweepStepBytes
                                                 : parse_byte_count("step", flags.step);
    if (step < 1) throw InputError("--step: must be at least 1 byte");
    points = analytic::sweep_threadgroup_memory(query, spec, step);
    x_name = "tg_memory_bytes";
  } else if (flags.sweep == "registers") {
    points = analytic::sweep_registers(query, spec);
    x_name = "registers";
  } else {
    throw InputError(
        fmt::format("--sweep: expected threads, tg-memory or registers, got '{}'", flags.sweep));
  }
  if (common.json) {
    streams.out << sweep_json(x_name, points).dump(2) << '\n';
  } else {
    print_sweep(streams.out, x_name, points);
  }
  return 0;
}

}  // namespace

int run_occupancy(const std::vector<std::string>& args, Streams streams) {
  CommonFlags common;
  OccupancyFlags flags;
  po::options_description options("occupancy flags");
  // clang-format off
  options.add_options()
      ("threads", po::value<std::string>(&flags.threads), "threads per threadgroup")
      ("tg-memory", po::value<std::string>(&flags.tg_memory)->default_value("0"),
       "threadgroup memory per threadgroup: bytes, or a size such as 4.5KiB")
      ("registers", po::value<std::string>(&flags.registers),
       "32-bit registers per thread (default: not given; Apple9 assumes the profile's value)")
      ("sweep", po::value<std::string>(&flags.sweep),
       "sweep one resource instead: threads, tg-memory or registers")
      ("step", po::value<std::string>(&flags.step),
       "step of the tg-memory sweep in bytes (default 1024)")
      ("plot", po::value<std::string>(&flags.plot),
       "write occupancy_tg_memory.svg and occupancy_threads.svg to this directory");
  // clang-format on
  add_common_flags(options, common);
  const po::variables_map vm = parse_flags("occupancy", args, options);
  if (common.help) {
    print_help(streams.out,
               "marlin-sim occupancy --threads N [--tg-memory BYTES] [--registers R] "
               "[--sweep threads|tg-memory|registers] [--device D] [--json]",
               "How many threadgroups of this shape are resident on one GPU core, each per-core\n"
               "limit, which one binds, and how much less of each resource reaches the next\n"
               "occupancy level. The rule depends on the GPU family (docs/analytical-model.md).",
               options);
    return 0;
  }
  if (!flags.step.empty() && flags.sweep != "tg-memory") {
    throw InputError("--step only applies to --sweep tg-memory");
  }
  const model::DeviceSpec device = model::load_device(common.device);
  const analytic::OccupancyDeviceSpec spec = analytic::occupancy_spec_of(device);
  const analytic::OccupancyQuery query = make_query(vm, flags, device);
  if (!flags.plot.empty()) plot_occupancy(device, query, flags.plot);
  if (!flags.sweep.empty()) return run_sweep(flags, common, query, spec, streams);

  const analytic::OccupancyResult result = analytic::compute_occupancy(query, spec);
  if (result.refused) {
    throw InputError(
        fmt::format("{} refuses this threadgroup: {}", device.name, result.refusal_reason));
  }
  if (common.json) {
    nlohmann::json json = occupancy_json(query, result);
    json["device"] = device.name;
    json["rule"] = model::to_string(device.occupancy.rule);
    streams.out << json.dump(2) << '\n';
  } else {
    streams.out << fmt::format("device {} ({}), occupancy rule {}\n", device.name,
                               device.description, model::to_string(device.occupancy.rule));
    print_occupancy(streams.out, query, result);
  }
  return 0;
}

}  // namespace marlin::cli
