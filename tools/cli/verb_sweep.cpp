// `marlin-sim sweep`: kernels x tile configurations x shapes on the device, a ranked table per
// shape and the dispatch table (select_tile) as JSON and as C++/Metal source; shards and merge.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "kernels/launch/kernel_catalog.h"
#include "model/common/input_error.h"
#include "model/device/profile_loader.h"
#include "tools/cli/args.h"
#include "tools/cli/format.h"
#include "tools/cli/plots.h"
#include "tools/cli/sweep.h"
#include "tools/cli/table.h"
#include "tools/cli/verbs.h"

namespace po = boost::program_options;

namespace marlin::cli {
namespace {

struct SweepFlags {
  std::string kernels = "marlin_gemm_fused_fp4,marlin_gemm_fp4";
  std::string tiles, m, n, k, group_size = "128", k_parallel = "1", shard, out, table, source;
  std::vector<std::string> merge;
  std::string host_threads;
  std::string plot;
  bool sample = false;
};

SweepSpec make_spec(const po::variables_map& vm, const SweepFlags& flags) {
  for (const char* flag : {"m", "n", "k"}) require_flag(vm, flag);
  SweepSpec spec;
  spec.kernels = split_list(flags.kernels);
  for (const std::string& kernel : spec.kernels) {
    kernels::find_gemm_kernel(kernel, kernels::marlin_tiles().front());  // names it if unknown
  }
  if (flags.tiles.empty()) {
    spec.tiles = kernels::marlin_tiles();
  } else {
    for (const std::string& tile : split_list(flags.tiles))
      spec.tiles.push_back(parse_tile("tiles", tile));
  }
  spec.ms = parse_integer_list("m", flags.m, 1, 1 << 20);
  spec.ns = parse_integer_list("n", flags.n, 1, 1 << 20);
  spec.ks = parse_integer_list("k", flags.k, 1, 1 << 20);
  spec.group_sizes.clear();
  for (const std::string& group : split_list(flags.group_size)) {
    spec.group_sizes.push_back(
        group == "column" ? kernels::kPerColumnGroup
                          : static_cast<int>(parse_integer("group-size", group, 8, 1 << 20)));
    kernels::WeightFormat{kernels::WeightFormatKind::kFp4E2M1, spec.group_sizes.back()}.validate();
  }
  spec.sample = flags.sample;
  spec.k_parallel.clear();
  for (const std::int64_t p : parse_integer_list("k-parallel", flags.k_parallel, 1, 64)) {
    spec.k_parallel.push_back(static_cast<int>(p));
  }
  return spec;
}

std::string shape_key(const SweepConfig& c) {
  return fmt::format("M={} N={} K={} group={}", c.m, c.n, c.k,
                     c.group_size == kernels::kPerColumnGroup ? std::string("column")
                                                              : std::to_string(c.group_size));
}

void print_rankings(std::ostream& out, const std::vector<SweepResult>& results) {
  std::map<std::int64_t, std::vector<const SweepResult*>> by_shape;  // first index -> results
  std::map<std::string, std::int64_t> first_index;
  for (const SweepResult& r : results) {
    const std::string key = shape_key(r.config);
    if (first_index.count(key) == 0) first_index[key] = r.config.index;
    by_shape[first_index[key]].push_back(&r);
  }
  for (auto& [index, rows] : by_shape) {
    std::stable_sort(rows.begin(), rows.end(), [](const SweepResult* a, const SweepResult* b) {
      if (a->refused != b->refused) return !a->refused;
      return !a->refused && a->cycles < b->cycles;
    });
    out << '\n' << shape_key(rows.front()->config) << '\n';
    TextTable table(
        {"rank", "kernel", "tile", "K slices", "cycles", "time", "FLOP/s", "occupancy"});
    int rank = 0;
    for (const SweepResult* r : rows) {
      const std::string tile = r->config.tile.tm == 0 ? "-" : analytic::tile_name(r->config.tile);
      if (r->refused) {
        table.add_row({"-", r->config.kernel, tile, std::to_string(r->config.k_parallel), "refused",
                       "-", "-", "-"});
        continue;
      }
      table.add_row({std::to_string(++rank), r->config.kernel, tile,
                     std::to_string(r->config.k_parallel), format_count(r->cycles),
                     format_seconds(r->seconds), format_rate(r->achieved_flops_per_s, "FLOP/s"),
                     format_percent(r->occupancy_percent)});
    }
    table.print(out);
  }
}

void write_text(const std::string& path, const std::string& flag, const std::string& text) {
  std::ofstream file(path);
  if (!file || !(file << text))
    throw InputError(fmt::format("--{}: cannot write '{}'", flag, path));
}

std::vector<nlohmann::json> read_shards(const std::vector<std::string>& paths) {
  std::vector<nlohmann::json> shards;
  for (const std::string& path : paths) {
    std::ifstream file(path);
    if (!file) throw InputError(fmt::format("--merge: cannot read '{}'", path));
    try {
      shards.push_back(nlohmann::json::parse(file));
    } catch (const nlohmann::json::exception& error) {
      throw InputError(fmt::format("--merge: '{}' is not JSON: {}", path, error.what()));
    }
  }
  return shards;
}

}  // namespace

int run_sweep_verb(const std::vector<std::string>& args, Streams streams) {
  CommonFlags common;
  SweepFlags flags;
  po::options_description options("sweep flags");
  // clang-format off
  options.add_options()
      ("kernels", po::value<std::string>(&flags.kernels)->default_value(flags.kernels),
       "comma-separated kernel families")
      ("tiles", po::value<std::string>(&flags.tiles), "comma-separated tiles (default: all)")
      ("m", po::value<std::string>(&flags.m), "comma-separated M values")
      ("n", po::value<std::string>(&flags.n), "comma-separated N values")
      ("k", po::value<std::string>(&flags.k), "comma-separated K values")
      ("group-size", po::value<std::string>(&flags.group_size)->default_value("128"),
       "comma-separated group sizes (multiples of 8) or 'column'")
      ("k-parallel", po::value<std::string>(&flags.k_parallel)->default_value("1"),
       "comma-separated K-slice factors for the striped kernel")
      ("sample", po::bool_switch(&flags.sample),
       "sampled simulation of each configuration (docs/sampling.md)")
      ("shard", po::value<std::string>(&flags.shard), "run shard i/n of the configurations")
      ("merge", po::value<std::vector<std::string>>(&flags.merge)->multitoken(),
       "combine shard outputs (files written with --out) instead of running")
      ("out", po::value<std::string>(&flags.out), "write the sweep results as JSON")
      ("table", po::value<std::string>(&flags.table),
       "write the dispatch table as JSON (loadable by SelectionTable::from_json)")
      ("source", po::value<std::string>(&flags.source),
       "write the dispatch table as a C++/Metal select_tile function")
      ("host-threads", po::value<std::string>(&flags.host_threads),
       "configurations run at once (default: the host's cores)")
      ("plot", po::value<std::string>(&flags.plot), "write time_vs_m.svg to this directory");
  // clang-format on
  add_common_flags(options, common);
  const po::variables_map vm = parse_flags("sweep", args, options);
  if (common.help) {
    print_help(streams.out,
               "marlin-sim sweep [--kernels K1,K2] [--tiles T1,T2] --m M1,M2 --n N --k K "
               "[--group-size G] [--k-parallel P1,P2] [--sample] [--shard i/n --out FILE] "
               "[--merge FILE...] [--table FILE] [--source FILE] [--device D] [--json]",
               "Runs every configuration on the engine and the device's timing model, ranks them\n"
               "per shape and writes the dispatch table: the fastest configuration per range of\n"
               "M. Shards (--shard i/n --out FILE) run as independent jobs; --merge combines\n"
               "their outputs with results identical to one whole run.",
               options);
    return 0;
  }
  SweepSpec spec;
  std::vector<SweepResult> results;
  Shard shard;
  std::string device_name = common.device;
  if (!flags.merge.empty()) {
    for (const char* flag : {"m", "n", "k", "shard", "tiles"}) {
      if (vm.count(flag) != 0) {
        throw InputError(
            fmt::format("--merge takes the sweep from the shard files; drop --{}", flag));
      }
    }
    results = merge_shards(read_shards(flags.merge), &device_name, &spec);
  } else {
    spec = make_spec(vm, flags);
    if (!flags.shard.empty()) shard = parse_shard(flags.shard);
    if (shard.count > 1 && (!flags.table.empty() || !flags.source.empty())) {
      throw InputError("--table and --source need the whole sweep: merge the shards first");
    }
  }
  const model::DeviceSpec device = model::load_device(device_name);
  if (flags.merge.empty()) {
    const unsigned threads = parse_host_threads(flags.host_threads);
    results = run_sweep(device, spec, shard, threads, [&](std::size_t done, std::size_t total) {
      streams.err << fmt::format("\rsweep: {}/{} configurations", done, total)
                  << (done == total ? "\n" : "") << std::flush;
    });
  }
  const bool complete = shard.count == 1;
  if (!flags.out.empty()) {
    write_text(flags.out, "out", sweep_json(device, spec, shard, results).dump(1) + "\n");
  }
  if (!flags.plot.empty()) plot_sweep(spec, results, flags.plot);
  std::optional<kernels::SelectionTable> table;
  if (complete) table = dispatch_table(spec, results);
  if (table && !flags.table.empty())
    write_text(flags.table, "table", table->to_json().dump(2) + "\n");
  if (table && !flags.source.empty())
    write_text(flags.source, "source", dispatch_table_source(*table));
  if (common.json) {
    nlohmann::json json = sweep_json(device, spec, shard, results);
    if (table) json["dispatch_table"] = table->to_json();
    streams.out << json.dump(2) << '\n';
    return 0;
  }
  streams.out << fmt::format(
      "sweep on {}: {} configurations{}\n", device.name, results.size(),
      complete ? "" : fmt::format(" (shard {}/{})", shard.index, shard.count));
  print_rankings(streams.out, results);
  if (table) {
    streams.out << "\ndispatch table (fastest configuration per range of M, at N="
                << spec.ns.front() << " K=" << spec.ks.front() << "):\n"
                << dispatch_table_source(*table);
  }
  return 0;
}

}  // namespace marlin::cli
