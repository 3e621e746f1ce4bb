#include "tools/workload/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>
#include <fstream>
#include <map>
#include <set>

#include "kernels/launch/kernel_catalog.h"
#include "model/common/input_error.h"

namespace marlin::workload {
namespace {

using json = nlohmann::json;
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

void check_keys(const json& object, const std::set<std::string>& allowed,
                const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (allowed.count(key) == 0) throw InputError(fmt::format("{}: unknown key '{}'", where, key));
  }
}

template <typename T>
T required(const json& object, const char* key, const std::string& where) {
  if (!object.contains(key)) throw InputError(fmt::format("{}: missing field '{}'", where, key));
  try {
    return object.at(key).get<T>();
  } catch (const json::exception&) {
    throw InputError(fmt::format("{}: field '{}' has the wrong type", where, key));
  }
}

// A forced tile must be one the kernels are compiled for.
analytic::Tile parse_tile(const std::string& text, const std::string& where) {
  const std::optional<analytic::Tile> tile = kernels::find_marlin_tile(text);
  if (!tile) {
    throw InputError(fmt::format("{}: tile: the kernels are not compiled for '{}'", where, text));
  }
  return *tile;
}

Graph build_graph(const Workload& w) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < w.nodes.size(); ++i) index[w.nodes[i].id] = i;
  Graph graph(w.nodes.size());
  for (std::size_t i = 0; i < w.nodes.size(); ++i) {
    for (const std::string& dep : w.nodes[i].after) boost::add_edge(index.at(dep), i, graph);
  }
  return graph;
}

// Records the target of the first back edge a depth-first search meets: a node on a cycle.
struct CycleFinder : boost::default_dfs_visitor {
  explicit CycleFinder(std::optional<std::size_t>* node) : node_(node) {}
  template <class Edge, class G>
  void back_edge(Edge e, const G& g) {
    if (!*node_) *node_ = boost::target(e, g);
  }
  std::optional<std::size_t>* node_;
};

}  // namespace

Workload parse_workload(const json& j, const std::string& label) {
  if (!j.is_object()) throw InputError(label + ": expected a JSON object");
  check_keys(j, {"name", "model", "layers", "phase", "tokens", "weights", "group_size", "nodes"},
             label);
  Workload w;
  w.name = required<std::string>(j, "name", label);
  w.model = required<std::string>(j, "model", label);
  w.layers = required<int>(j, "layers", label);
  const std::string phase = required<std::string>(j, "phase", label);
  if (phase != "decode" && phase != "prefill") {
    throw InputError(fmt::format("{}: phase: expected decode or prefill, got '{}'", label, phase));
  }
  w.decode = phase == "decode";
  w.tokens = required<std::int64_t>(j, "tokens", label);
  const std::string weights = required<std::string>(j, "weights", label);
  if (weights == "fp4") {
    w.weights = kernels::WeightFormatKind::kFp4E2M1;
  } else if (weights == "u4") {
    w.weights = kernels::WeightFormatKind::kU4B8;
  } else {
    throw InputError(fmt::format("{}: weights: expected fp4 or u4, got '{}'", label, weights));
  }
  w.group_size = required<int>(j, "group_size", label);
  if (w.layers < 1 || w.tokens < 1) {
    throw InputError(fmt::format("{}: layers and tokens must be at least 1", label));
  }
  if (w.decode && w.tokens != 1) {
    throw InputError(fmt::format("{}: a decode step has 1 token per sequence", label));
  }
  kernels::WeightFormat{w.weights, w.group_size}.validate();
  const json nodes = required<json>(j, "nodes", label);
  if (!nodes.is_array() || nodes.empty()) {
    throw InputError(fmt::format("{}: nodes: expected a non-empty array", label));
  }
  std::set<std::string> ids;
  for (const json& entry : nodes) {
    const std::string where0 = fmt::format("{}: node {}", label, w.nodes.size());
    if (!entry.is_object()) throw InputError(where0 + ": expected an object");
    Node node;
    node.id = required<std::string>(entry, "id", where0);
    const std::string where = fmt::format("{}: node '{}'", label, node.id);
    check_keys(entry, {"id", "n", "k", "after", "kernel", "tile"}, where);
    if (!ids.insert(node.id).second) throw InputError(where + ": the id is used twice");
    node.n = required<std::int64_t>(entry, "n", where);
    node.k = required<std::int64_t>(entry, "k", where);
    if (node.n < 1 || node.k < 1 || node.n > (1 << 20) || node.k > (1 << 20)) {
      throw InputError(where + ": n and k must be 1 to 1048576");
    }
    if (entry.contains("after"))
      node.after = required<std::vector<std::string>>(entry, "after", where);
    if (entry.contains("kernel")) node.kernel = required<std::string>(entry, "kernel", where);
    if (entry.contains("tile"))
      node.tile = parse_tile(required<std::string>(entry, "tile", where), where);
    w.nodes.push_back(std::move(node));
  }
  for (const Node& node : w.nodes) {
    for (const std::string& dep : node.after) {
      if (ids.count(dep) == 0) {
        throw InputError(
            fmt::format("{}: node '{}': depends on unknown node '{}'", label, node.id, dep));
      }
    }
  }
  dependency_order(w);  // rejects cycles
  return w;
}

Workload load_workload(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw InputError(fmt::format("{}: cannot open the workload file", path));
  json j;
  try {
    j = json::parse(file);
  } catch (const json::parse_error& error) {
    throw InputError(fmt::format("{}: malformed JSON: {}", path, error.what()));
  }
  return parse_workload(j, path);
}

std::vector<std::size_t> dependency_order(const Workload& w) {
  const Graph graph = build_graph(w);
  std::optional<std::size_t> on_cycle;
  boost::depth_first_search(graph, boost::visitor(CycleFinder(&on_cycle)));
  if (on_cycle) {
    throw InputError(
        fmt::format("{}: node '{}' is on a dependency cycle", w.name, w.nodes[*on_cycle].id));
  }
  std::vector<std::size_t> reversed;
  boost::topological_sort(graph, std::back_inserter(reversed));
  return {reversed.rbegin(), reversed.rend()};
}

WorkloadTime time_workload(const Workload& w, std::int64_t batch, const NodeTimer& timer,
                           double dispatch_overhead_s) {
  if (batch < 1) throw InputError("batch must be at least 1");
  WorkloadTime result;
  result.m = batch * w.tokens;
  std::map<std::string, std::size_t> position;
  std::vector<std::optional<std::size_t>> predecessor(w.nodes.size());
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < w.nodes.size(); ++i) index[w.nodes[i].id] = i;
  std::vector<double> finish(w.nodes.size(), 0);
  for (const std::size_t i : dependency_order(w)) {
    const Node& node = w.nodes[i];
    double start = 0;
    for (const std::string& dep : node.after) {
      const std::size_t d = index.at(dep);
      if (!predecessor[i] || finish[d] > start) {  // ties keep the first listed dependency
        start = finish[d];
        predecessor[i] = d;
      }
    }
    const double seconds = timer(node, result.m);
    finish[i] = start + dispatch_overhead_s + seconds;
    result.serial_layer_s += dispatch_overhead_s + seconds;
    result.nodes.push_back({node.id, seconds, finish[i], false});
    position[node.id] = result.nodes.size() - 1;
  }
  std::size_t last = 0;
  for (std::size_t i = 0; i < w.nodes.size(); ++i) {
    if (finish[i] > finish[last]) last = i;
  }
  for (std::optional<std::size_t> at = last; at; at = predecessor[*at]) {
    result.critical_path.insert(result.critical_path.begin(), w.nodes[*at].id);
    result.nodes[position[w.nodes[*at].id]].critical = true;
  }
  result.layer_s = finish[last];
  result.step_s = result.layer_s * w.layers;
  result.tokens_per_s = static_cast<double>(result.m) / result.step_s;
  result.serial_tokens_per_s = static_cast<double>(result.m) / (result.serial_layer_s * w.layers);
  return result;
}

}  // namespace marlin::workload
