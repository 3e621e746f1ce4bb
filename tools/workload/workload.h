// Workloads: a graph of kernel launches (one decoder layer of an LLM, say) repeated per layer,
// and its time on a device: nodes ordered with Boost.Graph, the critical path through the
// dependencies, time per layer, per token and tokens per second.
//
// JSON form (docs/cli.md, `model`):
//   {"name": "...", "model": "Llama-2-7B", "layers": 32, "phase": "decode" | "prefill",
//    "tokens": 1, "weights": "fp4" | "u4", "group_size": 128,
//    "nodes": [{"id": "qkv_proj", "n": 12288, "k": 4096, "after": []}, ...]}
// Each node is one quantized GEMM y[M, n] = x[M, k] W[k, n] with M = batch x tokens; "after"
// lists the nodes it depends on. Optional per node: "kernel" (a family) and "tile" to force a
// configuration instead of the selection table.
//
// Contract: loading is strict; a missing field, an unknown key, a duplicate or unknown node,
// a dependency cycle or a shape no kernel can run is an InputError naming the node.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kernels/host/weight_format.h"
#include "model/analytic/tile.h"

namespace marlin::workload {

struct Node {
  std::string id;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::vector<std::string> after;
  std::optional<std::string> kernel;   // forced family
  std::optional<analytic::Tile> tile;  // forced tile
};

struct Workload {
  std::string name;
  std::string model;
  int layers = 1;
  bool decode = true;
  std::int64_t tokens = 1;  // tokens per sequence in one step (1 for decode)
  kernels::WeightFormatKind weights = kernels::WeightFormatKind::kFp4E2M1;
  int group_size = 128;
  std::vector<Node> nodes;
};

// `label` names the source in messages.
Workload parse_workload(const nlohmann::json& json, const std::string& label);
Workload load_workload(const std::string& path);

// Nodes in dependency order (Boost.Graph topological sort); InputError on a cycle, naming a
// node on it.
std::vector<std::size_t> dependency_order(const Workload& workload);

// The time of one node at M rows, from whatever model the caller uses (seconds).
using NodeTimer = std::function<double(const Node& node, std::int64_t m)>;

struct NodeTime {
  std::string id;
  double seconds = 0;
  double finish_s = 0;  // earliest finish along the dependencies, overheads included
  bool critical = false;
};

struct WorkloadTime {
  std::int64_t m = 0;           // rows of every GEMM: batch x tokens
  std::vector<NodeTime> nodes;  // in dependency order
  std::vector<std::string> critical_path;
  double layer_s = 0;              // the critical path of one layer
  double serial_layer_s = 0;       // every node one after another (no overlap)
  double step_s = 0;               // layers x layer_s: one forward step
  double tokens_per_s = 0;         // batch x tokens / step_s
  double serial_tokens_per_s = 0;  // the same with serial_layer_s
};

// Times every node once (`timer`), adds `dispatch_overhead_s` per node, and finds the longest
// path through the dependencies. The critical path assumes launches without a dependency
// between them overlap completely, which is optimistic when each one alone saturates DRAM;
// serial_layer_s is the other bound, every launch after the previous one.
WorkloadTime time_workload(const Workload& workload, std::int64_t batch, const NodeTimer& timer,
                           double dispatch_overhead_s);

}  // namespace marlin::workload
