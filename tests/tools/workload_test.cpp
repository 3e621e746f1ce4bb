// Workload graphs: strict loading, dependency order, the critical path, and `marlin-sim model`.
#include "tools/workload/workload.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/common/input_error.h"
#include "tests/tools/cli_runner.h"

namespace marlin::cli::testing {
namespace {

nlohmann::json tiny() {
  return nlohmann::json::parse(R"({"name": "t", "model": "m", "layers": 3, "phase": "decode",
    "tokens": 1, "weights": "fp4", "group_size": 32, "nodes": [
      {"id": "a", "n": 8, "k": 8}, {"id": "b", "n": 8, "k": 8},
      {"id": "c", "n": 8, "k": 8, "after": ["a", "b"]},
      {"id": "d", "n": 8, "k": 8, "after": ["a"]}]})");
}

TEST(Workload, CriticalPathIsTheLongestChain) {
  const workload::Workload w = workload::parse_workload(tiny(), "tiny");
  // Node times: a 1, b 5, c 2, d 10 (seconds), overhead 0.5 per launch. Paths: a-c 1.5+2.5,
  // b-c 5.5+2.5 = 8, a-d 1.5+10.5 = 12: the critical path is a -> d, 12 s per layer.
  const std::map<std::string, double> times = {{"a", 1}, {"b", 5}, {"c", 2}, {"d", 10}};
  const workload::WorkloadTime t = workload::time_workload(
      w, 4,
      [&](const workload::Node& n, std::int64_t m) {
        EXPECT_EQ(m, 4);
        return times.at(n.id);
      },
      0.5);
  EXPECT_EQ(t.critical_path, (std::vector<std::string>{"a", "d"}));
  EXPECT_DOUBLE_EQ(t.layer_s, 12.0);
  EXPECT_DOUBLE_EQ(t.step_s, 36.0);
  EXPECT_DOUBLE_EQ(t.tokens_per_s, 4.0 / 36.0);
  EXPECT_DOUBLE_EQ(t.serial_layer_s, 1 + 5 + 2 + 10 + 4 * 0.5);
  // Dependency order puts every node after the nodes it depends on.
  const std::vector<std::size_t> order = workload::dependency_order(w);
  auto pos = [&](std::size_t node) {
    return std::find(order.begin(), order.end(), node) - order.begin();
  };
  EXPECT_LT(pos(0), pos(2));
  EXPECT_LT(pos(1), pos(2));
  EXPECT_LT(pos(0), pos(3));
}

TEST(Workload, BadWorkloadsNameTheNode) {
  struct Case {
    std::function<void(nlohmann::json&)> edit;
    std::string fragment;
  };
  const std::vector<Case> cases = {
      {[](nlohmann::json& j) { j["nodes"][0]["after"] = {"c"}; }, "is on a dependency cycle"},
      {[](nlohmann::json& j) { j["nodes"][2]["after"] = {"zz"}; },
       "node 'c': depends on unknown node 'zz'"},
      {[](nlohmann::json& j) { j["nodes"][1]["id"] = "a"; }, "node 'a': the id is used twice"},
      {[](nlohmann::json& j) { j["nodes"][3].erase("k"); }, "node 'd': missing field 'k'"},
      {[](nlohmann::json& j) { j["nodes"][3]["n"] = 0; }, "node 'd': n and k must be"},
      {[](nlohmann::json& j) { j["nodes"][3]["speed"] = 1; }, "node 'd': unknown key 'speed'"},
      {[](nlohmann::json& j) { j["nodes"][3]["tile"] = "60x64x32"; }, "node 'd'"},
      {[](nlohmann::json& j) { j["phase"] = "train"; }, "phase"},
      {[](nlohmann::json& j) { j["tokens"] = 4; }, "1 token"},
      {[](nlohmann::json& j) { j.erase("layers"); }, "missing field 'layers'"}};
  for (const Case& c : cases) {
    nlohmann::json j = tiny();
    c.edit(j);
    try {
      workload::parse_workload(j, "tiny");
      ADD_FAILURE() << c.fragment;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(c.fragment), std::string::npos) << error.what();
    }
  }
}

TEST(CliModel, SimulatedTinyWorkloadAndShippedOnesWithTheRoofline) {
  const CliResult sim =
      run_cli({"model", "--workload",
               std::string(MARLIN_SOURCE_DIR) + "/tests/tools/data/tiny_workload.json", "--batch",
               "2", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const nlohmann::json j = nlohmann::json::parse(sim.out);
  EXPECT_EQ(j.at("m"), 2);
  EXPECT_EQ(j.at("nodes").size(), 3u);
  const double a = j.at("nodes").at(0).at("seconds");
  EXPECT_GT(a, 0);
  EXPECT_EQ(j.at("critical_path").back(), "c");
  EXPECT_DOUBLE_EQ(j.at("step_s").get<double>(), 2 * j.at("layer_s").get<double>());
  for (const std::string name :
       {"llama2-7b-decode", "llama2-7b-prefill", "llama3-8b-decode", "llama3-8b-prefill"}) {
    const CliResult r = run_cli({"model", "--workload", name, "--timing", "roofline", "--json"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_GT(nlohmann::json::parse(r.out).at("tokens_per_s").get<double>(), 0) << name;
  }
  const CliResult bad = run_cli({"model", "--workload", "gpt5"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("llama2-7b-decode"), std::string::npos);
}

// The tiny workload's three kernels run side by side: the same results at any thread count.
TEST(CliModel, ResultsDoNotDependOnHostThreads) {
  const std::string tiny_file =
      std::string(MARLIN_SOURCE_DIR) + "/tests/tools/data/tiny_workload.json";
  std::vector<nlohmann::json> results;
  for (const std::string threads : {"1", "2", "3"}) {
    const CliResult r =
        run_cli({"model", "--workload", tiny_file, "--host-threads", threads, "--json"});
    ASSERT_EQ(r.exit_code, 0) << threads << ": " << r.err;
    results.push_back(nlohmann::json::parse(r.out));
  }
  EXPECT_EQ(results[0].dump(), results[1].dump());
  EXPECT_EQ(results[0].dump(), results[2].dump());
  EXPECT_EQ(run_cli({"model", "--workload", tiny_file, "--host-threads", "0"}).exit_code, 2);
}

// Every kernel fails on a device that allows 64 threads per threadgroup: the message names the
// first node in dependency order, however the runs side by side finish.
TEST(CliModel, AFailedKernelNamesTheFirstNodeThatRunsIt) {
  const std::string profile = write_m4max_variant(
      "m4max-narrow",
      R"({"name": "m4max-narrow", "description": "m4max, 64 threads per threadgroup",
           "inherits": "m4max", "limits": {"max_threads_per_threadgroup": {"value": 64,
           "kind": "estimate", "source": "test"}}})");
  const std::string tiny_file =
      std::string(MARLIN_SOURCE_DIR) + "/tests/tools/data/tiny_workload.json";
  const workload::Workload w = workload::load_workload(tiny_file);
  const std::string first = w.nodes[workload::dependency_order(w).front()].id;
  for (const std::string threads : {"1", "2"}) {
    const CliResult r =
        run_cli({"model", "--workload", tiny_file, "--device", profile, "--host-threads", threads});
    EXPECT_EQ(r.exit_code, 2) << threads;
    EXPECT_NE(r.err.find("tiny: node '" + first + "': "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("exceed the device limit of 64"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace marlin::cli::testing
