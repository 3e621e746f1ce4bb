// `marlin-sim run --trace FILE`: the file is a Chrome trace consistent with the run's report,
// the bound and the core sampling are honoured and reported, and bad flags are InputErrors.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/tools/cli_runner.h"

namespace marlin::cli::testing {
namespace {

// M=3, N=100, K=80 on the 64x64x32 fused kernel: ceil(100 / 64) = 2 threadgroups.
const std::vector<std::string> kRun = {
    "run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "3", "--n", "100",
    "--k", "80",       "--group-size",          "16"};

std::string temp_path(const std::string& name) { return ::testing::TempDir() + name; }

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

CliResult run_with(std::vector<std::string> extra) {
  std::vector<std::string> args = kRun;
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(args);
}

TEST(CliTrace, WritesATraceConsistentWithTheReport) {
  const std::string path = temp_path("cli_trace_whole.json");
  const CliResult result = run_with({"--trace", path, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  const nlohmann::json trace = read_json(path);
  const nlohmann::json& events = trace.at("traceEvents");
  EXPECT_EQ(report.at("trace").at("events").get<std::size_t>(), events.size());
  EXPECT_EQ(report.at("trace").at("path"), path);
  EXPECT_FALSE(report.at("trace").at("truncated").get<bool>());
  EXPECT_FALSE(trace.at("otherData").at("truncated").get<bool>());

  std::map<std::string, int> counters;
  int lifetimes = 0;
  std::int64_t launch_end_cycle = -1;
  for (const nlohmann::json& e : events) {
    if (e.at("ph") == "C") ++counters[e.at("name").get<std::string>()];
    if (e.at("ph") != "X" || !e.contains("args")) continue;
    if (e.at("args").contains("threadgroup")) ++lifetimes;
    if (!e.at("args").contains("threadgroup")) {
      launch_end_cycle = e.at("args").at("end_cycle").get<std::int64_t>();
      // ts and dur are microseconds of the device clock: cycles / clock_hz * 1e6.
      const double clock_hz = trace.at("otherData").at("clock_hz").get<double>();
      const double end_us = e.at("ts").get<double>() + e.at("dur").get<double>();
      EXPECT_NEAR(end_us, static_cast<double>(launch_end_cycle) / clock_hz * 1e6, 1e-3);
    }
  }
  EXPECT_EQ(launch_end_cycle, report.at("cycles").get<std::int64_t>());
  EXPECT_EQ(lifetimes, 2);
  EXPECT_GT(counters["resident simdgroups"], 0);
  EXPECT_GT(counters["DRAM bandwidth"], 0);
}

TEST(CliTrace, BoundAndCoreSamplingAreReported) {
  const std::string path = temp_path("cli_trace_bound.json");
  const CliResult whole = run_with({"--trace", path, "--trace-cores", "1", "--json"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const nlohmann::json full = nlohmann::json::parse(whole.out).at("trace");
  EXPECT_EQ(full.at("cores_traced"), 1);
  EXPECT_EQ(read_json(path).at("otherData").at("cores_traced"), 1);
  // The reserved events (metadata of every track core 0 may use, the launch, the first DRAM
  // sample) and 3 more. Reserved metadata: GPU 4, core 0 2, and 2 per threadgroup slot and per
  // simdgroup slot: resident threadgroups x (1 + simdgroups per threadgroup), both from the
  // report (threads / 32 simdgroups).
  const nlohmann::json dispatch = nlohmann::json::parse(whole.out).at("dispatches").at(0);
  const std::int64_t resident = dispatch.at("resident_threadgroups_per_core").get<std::int64_t>();
  const std::int64_t sgs = dispatch.at("threads").at(0).get<std::int64_t>() / 32;
  const std::int64_t always = 4 + 2 + 2 * resident * (1 + sgs) + 1 + 1;
  const std::int64_t bound = always + 3;
  ASSERT_LT(bound, full.at("events").get<std::int64_t>());
  const CliResult cut = run_with({"--trace", path, "--trace-cores", "1", "--trace-max-events",
                                  std::to_string(bound), "--json"});
  ASSERT_EQ(cut.exit_code, 0) << cut.err;
  const nlohmann::json report = nlohmann::json::parse(cut.out).at("trace");
  const nlohmann::json trace = read_json(path);
  EXPECT_TRUE(report.at("truncated").get<bool>());
  EXPECT_LE(trace.at("traceEvents").size(), static_cast<std::size_t>(bound));
  // Without the metadata (only tracks with events are named), kept + dropped = all.
  EXPECT_EQ(report.at("events").get<std::int64_t>() -
                report.at("metadata_events").get<std::int64_t>() +
                report.at("dropped_events").get<std::int64_t>(),
            full.at("events").get<std::int64_t>() - full.at("metadata_events").get<std::int64_t>());
  EXPECT_TRUE(trace.at("otherData").at("truncated").get<bool>());
  EXPECT_EQ(trace.at("otherData").at("dropped_events"), report.at("dropped_events"));

  const CliResult text = run_with(
      {"--trace", path, "--trace-cores", "1", "--trace-max-events", std::to_string(bound)});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("truncated by --trace-max-events"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("sampled: 1 of"), std::string::npos) << text.out;
}

TEST(CliTrace, BadTraceFlagsAreInputErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--trace", "/nonexistent-dir/trace.json"}, "--trace"},
      {{"--trace-cores", "2"}, "--trace"},
      {{"--trace", temp_path("bad.json"), "--trace-max-events", "0"}, "--trace-max-events"},
      {{"--trace", temp_path("bad.json"), "--trace-max-events", "5"}, "--trace-max-events"},
      {{"--trace", temp_path("bad.json"), "--trace-every", "x"}, "--trace-every"}};
  for (const auto& [extra, flag] : bad) {
    const CliResult result = run_with(extra);
    EXPECT_EQ(result.exit_code, 2) << extra[0] << ": " << result.err;
    EXPECT_EQ(result.err.rfind("marlin-sim: error: ", 0), 0u) << result.err;
    EXPECT_NE(result.err.find(flag), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace marlin::cli::testing
