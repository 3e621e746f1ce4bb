// A sweep: kernels x tiles x shapes, each configuration run on the engine and timed on the
// device, spread over host threads; shards for batch systems and the merge of their outputs;
// the ranking per shape and the dispatch table (fastest configuration per range of M).
//
// Contract: configurations are enumerated in one fixed order, so shard i of n (the
// configurations whose index % n == i) and the merge of all shards give the same results as
// the whole sweep, bit for bit. A configuration the device refuses is recorded as refused,
// not an error; bad sweep parameters are InputErrors.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kernels/launch/selection_table.h"
#include "model/device/device_spec.h"

namespace marlin::cli {

struct SweepSpec {
  std::vector<std::string> kernels;  // families
  std::vector<analytic::Tile> tiles;
  std::vector<std::int64_t> ms, ns, ks;
  std::vector<int> group_sizes = {128};
  std::vector<int> k_parallel = {1};  // used by the striped kernel only
  bool sample = false;                // sampled simulation of each configuration (sampling.h)
};

struct SweepConfig {
  std::int64_t index = 0;  // position in the enumeration
  std::string kernel;
  analytic::Tile tile;
  std::int64_t m = 0, n = 0, k = 0;
  int group_size = 128;
  int k_parallel = 1;
};

struct SweepResult {
  SweepConfig config;
  bool refused = false;
  std::string refusal;  // why the device refuses it
  std::string metal_name;
  std::int64_t cycles = 0;  // predicted, all dispatches
  double seconds = 0;
  double achieved_flops_per_s = 0;
  double occupancy_percent = 0;  // of the main dispatch
};

struct Shard {
  int index = 0;  // 0-based
  int count = 1;
};

// "i/n" with 0 <= i < n; throws InputError naming --shard otherwise.
Shard parse_shard(const std::string& text);

// Every configuration: for each shape (m, n, k, group), each kernel, each tile, each
// K-parallel factor (striped kernel only; others take 1).
std::vector<SweepConfig> enumerate(const SweepSpec& spec);

// Runs the configurations of `shard` on `host_threads` threads; `progress(done, total)` is
// called after each configuration (from any thread, serialized).
std::vector<SweepResult> run_sweep(const model::DeviceSpec& device, const SweepSpec& spec,
                                   Shard shard, unsigned host_threads,
                                   const std::function<void(std::size_t, std::size_t)>& progress);

nlohmann::json sweep_json(const model::DeviceSpec& device, const SweepSpec& spec, Shard shard,
                          const std::vector<SweepResult>& results);

// Reads shard outputs of one sweep (same device and spec) and returns all results in
// enumeration order; InputError if they disagree, overlap or miss configurations.
std::vector<SweepResult> merge_shards(const std::vector<nlohmann::json>& shards,
                                      std::string* device_name, SweepSpec* spec);

// True for the configurations at the first swept N, K and group size: the slice the dispatch
// table and the time-against-M plot are drawn from.
bool at_first_shape(const SweepSpec& spec, const SweepConfig& config);

// The fastest non-refused Marlin configuration at each swept M (first N, K and group of the
// spec), as a selection table: rule i covers M up to the i-th swept M, the last rule all M.
kernels::SelectionTable dispatch_table(const SweepSpec& spec,
                                       const std::vector<SweepResult>& results);

// The table as a select_tile function in C++ (also valid Metal).
std::string dispatch_table_source(const kernels::SelectionTable& table);

}  // namespace marlin::cli
