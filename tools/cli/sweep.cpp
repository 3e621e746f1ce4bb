#include "tools/cli/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "model/common/input_error.h"
#include "tools/cli/kernel_run.h"
#include "tools/cli/parallel_jobs.h"

namespace marlin::cli {
namespace {

constexpr std::uint64_t kSweepSeed = 1;

SweepResult run_config(const model::DeviceSpec& device, const SweepConfig& config, bool sample) {
  SweepResult result;
  result.config = config;
  KernelRunRequest request;
  request.kernel = config.kernel;
  request.tile = config.tile;
  request.problem = {config.m, config.n, config.k};
  request.problem.k_parallel = config.k_parallel;
  request.group_size = config.group_size;
  request.seed = kSweepSeed;
  request.sample = sample;
  try {
    const KernelRunReport report = run_kernel(device, request);
    result.metal_name = report.kernel.metal_name;
    result.cycles = report.timing.total_cycles.count();
    result.seconds = report.timing.seconds;
    result.achieved_flops_per_s = report.timing.achieved_flops_per_s;
    for (const DispatchReport& d : report.dispatches) {
      if (d.kernel == report.kernel.metal_name) {
        result.occupancy_percent = d.occupancy.occupancy_percent;
      }
    }
  } catch (const InputError& error) {
    result.refused = true;
    result.refusal = error.what();
  }
  return result;
}

// Classic matmuls have no tile: "" in the JSON.
nlohmann::json tile_json(const analytic::Tile& tile) {
  return tile.tm == 0 ? std::string() : analytic::tile_name(tile);
}

nlohmann::json spec_json(const SweepSpec& spec) {
  nlohmann::json tiles = nlohmann::json::array();
  for (const analytic::Tile& tile : spec.tiles) tiles.push_back(tile_json(tile));
  return {{"kernels", spec.kernels},
          {"tiles", tiles},
          {"m", spec.ms},
          {"n", spec.ns},
          {"k", spec.ks},
          {"group_sizes", spec.group_sizes},
          {"k_parallel", spec.k_parallel},
          {"sample", spec.sample}};
}

analytic::Tile parse_tile_json(const nlohmann::json& value) {
  const std::string text = value.get<std::string>();
  if (text.empty()) return analytic::Tile{};
  const std::optional<analytic::Tile> tile = kernels::find_marlin_tile(text);
  if (!tile) throw InputError(fmt::format("sweep output: unknown tile '{}'", text));
  return *tile;
}

SweepSpec spec_from_json(const nlohmann::json& json) {
  SweepSpec spec;
  spec.kernels = json.at("kernels").get<std::vector<std::string>>();
  for (const nlohmann::json& tile : json.at("tiles")) spec.tiles.push_back(parse_tile_json(tile));
  spec.ms = json.at("m").get<std::vector<std::int64_t>>();
  spec.ns = json.at("n").get<std::vector<std::int64_t>>();
  spec.ks = json.at("k").get<std::vector<std::int64_t>>();
  spec.group_sizes = json.at("group_sizes").get<std::vector<int>>();
  spec.k_parallel = json.at("k_parallel").get<std::vector<int>>();
  spec.sample = json.value("sample", false);
  return spec;
}

nlohmann::json result_json(const SweepResult& r) {
  const SweepConfig& c = r.config;
  nlohmann::json json = {{"index", c.index},
                         {"kernel", c.kernel},
                         {"tile", tile_json(c.tile)},
                         {"m", c.m},
                         {"n", c.n},
                         {"k", c.k},
                         {"group_size", c.group_size},
                         {"k_parallel", c.k_parallel},
                         {"refused", r.refused}};
  if (r.refused) {
    json["refusal"] = r.refusal;
  } else {
    json["metal_name"] = r.metal_name;
    json["cycles"] = r.cycles;
    json["seconds"] = r.seconds;
    json["achieved_flops_per_s"] = r.achieved_flops_per_s;
    json["occupancy_percent"] = r.occupancy_percent;
  }
  return json;
}

SweepResult result_from_json(const nlohmann::json& json) {
  SweepResult r;
  r.config.index = json.at("index").get<std::int64_t>();
  r.config.kernel = json.at("kernel").get<std::string>();
  r.config.tile = parse_tile_json(json.at("tile"));
  r.config.m = json.at("m").get<std::int64_t>();
  r.config.n = json.at("n").get<std::int64_t>();
  r.config.k = json.at("k").get<std::int64_t>();
  r.config.group_size = json.at("group_size").get<int>();
  r.config.k_parallel = json.at("k_parallel").get<int>();
  r.refused = json.at("refused").get<bool>();
  if (r.refused) {
    r.refusal = json.at("refusal").get<std::string>();
    return r;
  }
  r.metal_name = json.at("metal_name").get<std::string>();
  r.cycles = json.at("cycles").get<std::int64_t>();
  r.seconds = json.at("seconds").get<double>();
  r.achieved_flops_per_s = json.at("achieved_flops_per_s").get<double>();
  r.occupancy_percent = json.at("occupancy_percent").get<double>();
  return r;
}

const char* variant_of(const std::string& family) {
  if (family == "marlin_gemm_fp4") return "separate";
  if (family == "marlin_gemm_fp4_striped") return "striped";
  return "fused";
}

bool is_marlin(const std::string& family) { return family.rfind("marlin_gemm", 0) == 0; }

}  // namespace

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  Shard shard;
  bool ok = slash != std::string::npos;
  if (ok) {
    const auto [p1, e1] = std::from_chars(text.data(), text.data() + slash, shard.index);
    const auto [p2, e2] =
        std::from_chars(text.data() + slash + 1, text.data() + text.size(), shard.count);
    ok = e1 == std::errc() && e2 == std::errc() && p1 == text.data() + slash &&
         p2 == text.data() + text.size() && shard.count >= 1 && shard.index >= 0 &&
         shard.index < shard.count;
  }
  if (!ok) {
    throw InputError(fmt::format("--shard: expected i/n with 0 <= i < n, got '{}'", text));
  }
  return shard;
}

std::vector<SweepConfig> enumerate(const SweepSpec& spec) {
  std::vector<SweepConfig> configs;
  for (const std::int64_t m : spec.ms) {
    for (const std::int64_t n : spec.ns) {
      for (const std::int64_t k : spec.ks) {
        for (const int group : spec.group_sizes) {
          for (const std::string& kernel : spec.kernels) {
            const bool striped = kernel == "marlin_gemm_fp4_striped";
            const std::vector<analytic::Tile> tiles =
                is_marlin(kernel) ? spec.tiles : std::vector<analytic::Tile>{analytic::Tile{}};
            for (const analytic::Tile& tile : tiles) {
              for (const int kp : striped ? spec.k_parallel : std::vector<int>{1}) {
                configs.push_back(
                    {static_cast<std::int64_t>(configs.size()), kernel, tile, m, n, k, group, kp});
              }
            }
          }
        }
      }
    }
  }
  return configs;
}

std::vector<SweepResult> run_sweep(const model::DeviceSpec& device, const SweepSpec& spec,
                                   Shard shard, unsigned host_threads,
                                   const std::function<void(std::size_t, std::size_t)>& progress) {
  std::vector<SweepConfig> mine;
  for (const SweepConfig& config : enumerate(spec)) {
    if (config.index % shard.count == shard.index) mine.push_back(config);
  }
  std::vector<SweepResult> results(mine.size());
  run_parallel_jobs(
      mine.size(), host_threads,
      [&](std::size_t i) { results[i] = run_config(device, mine[i], spec.sample); }, progress);
  return results;
}

nlohmann::json sweep_json(const model::DeviceSpec& device, const SweepSpec& spec, Shard shard,
                          const std::vector<SweepResult>& results) {
  nlohmann::json list = nlohmann::json::array();
  for (const SweepResult& r : results) list.push_back(result_json(r));
  return {{"format", "marlin-sim sweep 1"},
          {"device", device.name},
          {"spec", spec_json(spec)},
          {"shard", fmt::format("{}/{}", shard.index, shard.count)},
          {"configurations", enumerate(spec).size()},
          {"results", list}};
}

std::vector<SweepResult> merge_shards(const std::vector<nlohmann::json>& shards,
                                      std::string* device_name, SweepSpec* spec) {
  if (shards.empty()) throw InputError("--merge: no shard outputs given");
  std::vector<std::optional<SweepResult>> slots;
  try {
    const nlohmann::json& first = shards.front();
    *device_name = first.at("device").get<std::string>();
    *spec = spec_from_json(first.at("spec"));
    slots.resize(first.at("configurations").get<std::size_t>());
    for (const nlohmann::json& shard : shards) {
      if (shard.at("format") != "marlin-sim sweep 1") {
        throw InputError("--merge: not a marlin-sim sweep output");
      }
      if (shard.at("device") != first.at("device") || shard.at("spec") != first.at("spec")) {
        throw InputError("--merge: the shards come from different sweeps (device or spec)");
      }
      for (const nlohmann::json& entry : shard.at("results")) {
        SweepResult r = result_from_json(entry);
        const auto index = static_cast<std::size_t>(r.config.index);
        if (index >= slots.size()) throw InputError("--merge: a result index is out of range");
        if (slots[index]) {
          throw InputError(fmt::format("--merge: configuration {} appears twice", index));
        }
        slots[index] = std::move(r);
      }
    }
  } catch (const nlohmann::json::exception& error) {
    throw InputError(fmt::format("--merge: malformed sweep output: {}", error.what()));
  }
  std::vector<SweepResult> results;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i]) throw InputError(fmt::format("--merge: configuration {} is missing", i));
    results.push_back(*slots[i]);
  }
  return results;
}

bool at_first_shape(const SweepSpec& spec, const SweepConfig& config) {
  return config.n == spec.ns.front() && config.k == spec.ks.front() &&
         config.group_size == spec.group_sizes.front();
}

kernels::SelectionTable dispatch_table(const SweepSpec& spec,
                                       const std::vector<SweepResult>& results) {
  std::vector<std::int64_t> ms = spec.ms;
  std::sort(ms.begin(), ms.end());
  ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
  nlohmann::json rules = nlohmann::json::array();
  for (const std::int64_t m : ms) {
    const SweepResult* best = nullptr;
    for (const SweepResult& r : results) {
      const SweepConfig& c = r.config;
      if (r.refused || !is_marlin(c.kernel) || c.m != m || !at_first_shape(spec, c)) {
        continue;
      }
      if (best == nullptr || r.cycles < best->cycles) best = &r;
    }
    if (best == nullptr) continue;
    rules.push_back({{"max_m", m},
                     {"variant", variant_of(best->config.kernel)},
                     {"tile", analytic::tile_name(best->config.tile)},
                     {"k_parallel", best->config.k_parallel}});
  }
  if (rules.empty()) {
    throw InputError("sweep: no Marlin configuration ran, so there is no dispatch table");
  }
  rules.back().erase("max_m");
  return kernels::SelectionTable::from_json({{"rules", rules}});
}

std::string dispatch_table_source(const kernels::SelectionTable& table) {
  std::string source =
      "// Generated by marlin-sim sweep: the fastest kernel configuration per range of M.\n"
      "// Valid C++ and Metal. variant: 0 separate (marlin_gemm_fp4), 1 fused\n"
      "// (marlin_gemm_fused_*), 2 striped (marlin_gemm_fp4_striped).\n"
      "struct TileChoice {\n  unsigned variant;\n  unsigned tm, tn, tk;\n"
      "  unsigned k_parallel;\n};\n\ninline TileChoice select_tile(unsigned m) {\n";
  const nlohmann::json json = table.to_json();
  for (const nlohmann::json& rule : json.at("rules")) {
    const std::string variant = rule.at("variant");
    const unsigned code = variant == "separate" ? 0 : variant == "fused" ? 1 : 2;
    const std::string tile = rule.at("tile");
    const analytic::Tile t = kernels::find_marlin_tile(tile).value();  // the table validated it
    const std::string choice = fmt::format("{{{}u, {}u, {}u, {}u, {}u}}", code, t.tm, t.tn, t.tk,
                                           rule.at("k_parallel").get<int>());
    if (rule.contains("max_m")) {
      source += fmt::format("  if (m <= {}u) return TileChoice{};  // {} {}\n",
                            rule.at("max_m").get<std::int64_t>(), choice, variant, tile);
    } else {
      source += fmt::format("  return TileChoice{};  // {} {}\n", choice, variant, tile);
    }
  }
  source += "}\n";
  return source;
}

}  // namespace marlin::cli
