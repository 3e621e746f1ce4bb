// `marlin-sim devices`: the shipped device profiles, or every field of one of them.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "model/device/device_math.h"
#include "model/device/device_names.h"
#include "model/device/profile_loader.h"
#include "tools/cli/device_report.h"
#include "tools/cli/format.h"
#include "tools/cli/table.h"
#include "tools/cli/verbs.h"

namespace po = boost::program_options;

namespace marlin::cli {

int run_devices(const std::vector<std::string>& args, Streams streams) {
  CommonFlags flags;
  po::options_description options("devices flags");
  add_common_flags(options, flags);
  const po::variables_map vm = parse_flags("devices", args, options);
  if (flags.help) {
    print_help(streams.out, "marlin-sim devices [--device NAME|PATH] [--json]",
               "Lists the device profiles in the profiles directory. With --device, prints every\n"
               "field of that profile with its value, source kind and source.",
               options);
    return 0;
  }
  if (!vm["device"].defaulted()) {
    const model::DeviceSpec device = model::load_device(flags.device);
    if (flags.json) {
      streams.out << device_fields_json(device).dump(2) << '\n';
    } else {
      print_device_fields(streams.out, device);
    }
    return 0;
  }
  nlohmann::json list = nlohmann::json::array();
  TextTable table(
      {"device", "family", "cores", "clock", "peak FP16", "DRAM", "balance", "description"});
  for (const std::string& name : model::list_devices()) {
    const model::DeviceSpec device = model::load_device(name);
    list.push_back(device_summary_json(device));
    table.add_row({name, std::string(model::to_string(device.gpu.family)),
                   std::to_string(device.gpu.cores),
                   fmt::format("{:.0f} MHz", device.gpu.clock_hz / 1e6),
                   format_rate(model::peak_fp16_flops(device.gpu, device.pipes), "FLOP/s"),
                   format_rate(device.memory.dram_bandwidth_bytes_per_s, "B/s"),
                   fmt::format("{:.1f}", model::machine_balance(device)), device.description});
  }
  if (flags.json) {
    streams.out << nlohmann::json{{"devices", list}}.dump(2) << '\n';
  } else {
    streams.out << fmt::format("profiles in {}\n\n", model::profiles_dir().string());
    table.print(streams.out);
  }
  return 0;
}

}  // namespace marlin::cli
