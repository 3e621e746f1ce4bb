// `marlin-sim run`: the kernel runs, its check passes, and the report is consistent.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/tools/cli_runner.h"

namespace marlin::cli::testing {
namespace {

TEST(CliRun, FusedKernelChecksAndReportsConsistently) {
  const nlohmann::json json =
      run_json({"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "3", "--n",
                "100", "--k", "80", "--group-size", "16", "--check", "--json"});
  EXPECT_EQ(json.at("kernel"), "marlin_gemm_fused_fp4_64x64x32");
  EXPECT_TRUE(json.at("check").at("pass").get<bool>());
  const nlohmann::json& dispatch = json.at("dispatches").at(0);
  // ceil(100 / 64) = 2 tile columns, ceil(3 / 64) = 1 tile row.
  EXPECT_EQ(dispatch.at("threadgroups"), nlohmann::json::array({2, 1, 1}));
  EXPECT_EQ(dispatch.at("threadgroup_memory_bytes"), 64 * 32 * 2 + 4 * 64 * 2);
  std::int64_t breakdown = 0;
  for (const auto& [state, cycles] : json.at("breakdown_slot_cycles").items()) {
    breakdown += cycles.get<std::int64_t>();
  }
  EXPECT_EQ(breakdown, dispatch.at("slot_cycles").get<std::int64_t>());
  // Achieved FLOP/s is the useful work 2 M N K over the predicted time.
  EXPECT_NEAR(json.at("achieved_flops_per_s").get<double>() * json.at("seconds").get<double>(),
              2.0 * 3 * 100 * 80, 1e-6 * 2.0 * 3 * 100 * 80);
}

TEST(CliRun, ReportsTheHostProcessorTimeOfItsEngineAndTimingModel) {
  for (const bool sample : {false, true}) {
    std::vector<std::string> args = {"run",    "--kernel", "marlin_gemm_fused_fp4",
                                     "--tile", "64x64x32", "--m",
                                     "16",     "--n",      "256",
                                     "--k",    "2048",     "--json"};
    if (sample) args.emplace_back("--sample");
    const nlohmann::json simulator = run_json(args).at("simulator");
    const double wall =
        simulator.at("engine_seconds").get<double>() + simulator.at("timing_seconds").get<double>();
    const double cpu = simulator.at("host_cpu_seconds").get<double>();
    // The engine ran on the host's processor, so its time is not zero; cores busy is that time
    // over the wall time of the same span.
    EXPECT_GT(cpu, 0) << simulator;
    EXPECT_DOUBLE_EQ(simulator.at("host_cores_busy").get<double>(), cpu / wall) << simulator;
  }
}

// The replay's bookkeeping of its host threads: no windows on one thread; on two, a whole grid
// sampled (its launches replayed from traces in memory, not streamed) runs in windows, a stop
// comes at a look after 32 windows at least, and a move (of one core between the two threads'
// ranges) after 256 (docs/timing-model.md, "Parallel replay").
TEST(CliRun, ReportsTheParallelReplaysWindowsMovesAndStops) {
  for (const int threads : {1, 2}) {
    const nlohmann::json simulator =
        run_json({"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "16",
                  "--n", "4096", "--k", "1024", "--sample", "--host-threads",
                  std::to_string(threads), "--json"})
            .at("simulator");
    const auto windows = simulator.at("parallel_windows").get<std::int64_t>();
    const auto moves = simulator.at("partition_moves").get<std::int64_t>();
    const auto stops = simulator.at("parallel_stops").get<std::int64_t>();
    if (threads == 1) {
      EXPECT_EQ(windows, 0) << simulator;
      EXPECT_EQ(moves, 0) << simulator;
      EXPECT_EQ(stops, 0) << simulator;
    } else {
      EXPECT_GT(windows, 0) << simulator;
      EXPECT_LE(32 * stops, windows) << simulator;
      EXPECT_LE(256 * moves, windows) << simulator;
    }
  }
}

TEST(CliRun, StripedKernelRunsThreeDispatchesWithKSlices) {
  const nlohmann::json json =
      run_json({"run", "--kernel", "marlin_gemm_fp4_striped", "--tile", "32x128x32", "--m", "2",
                "--n", "130", "--k", "256", "--group-size", "32", "--k-parallel", "3",
                "--threadgroups", "4", "--check", "--json"});
  EXPECT_TRUE(json.at("check").at("pass").get<bool>());
  ASSERT_EQ(json.at("dispatches").size(), 3u);
  EXPECT_EQ(json.at("dispatches").at(0).at("kernel"), "marlin_zero_reduction");
  EXPECT_EQ(json.at("dispatches").at(1).at("threadgroups"), nlohmann::json::array({4, 1, 1}));
  EXPECT_EQ(json.at("dispatches").at(2).at("kernel"), "marlin_reduce_partials");
}

TEST(CliRun, ClassicMatmulWithEpilogue) {
  const nlohmann::json json =
      run_json({"run", "--kernel", "matmul_tiled_32x32_f16", "--m", "40", "--n", "33", "--k", "50",
                "--bias", "--activation", "gelu", "--check", "--json"});
  EXPECT_EQ(json.at("kernel"), "matmul_tiled_32x32_f16");
  EXPECT_TRUE(json.at("check").at("pass").get<bool>());
  EXPECT_EQ(json.at("dispatches").at(0).at("threads"), nlohmann::json::array({32, 32, 1}));
}

TEST(CliRun, RefusalsAndBadFlags) {
  const std::vector<std::vector<std::string>> bad = {
      {"run", "--kernel", "marlin_gemm_fp4", "--tile", "64x64x64", "--m", "8", "--n", "8", "--k",
       "8"},
      {"run", "--kernel", "marlin_gemm_fused_fp4", "--m", "8", "--n", "8", "--k", "8"},
      {"run", "--kernel", "nope", "--m", "8", "--n", "8", "--k", "8"},
      {"run", "--kernel", "matmul_f16", "--m", "8", "--n", "8"},
      {"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "8", "--n", "8",
       "--k", "8", "--k-parallel", "2"},
      {"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "8", "--n", "8",
       "--k", "8", "--bias"},
      {"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "8", "--n", "8",
       "--k", "8", "--group-size", "12"},
      {"run", "--kernel", "matmul_f16", "--m", "8", "--n", "8", "--k", "8", "--activation",
       "tanh"}};
  for (const auto& args : bad) {
    const CliResult result = run_cli(args);
    EXPECT_EQ(result.exit_code, 2) << args[2] << ": " << result.err;
    EXPECT_EQ(result.err.rfind("marlin-sim: error: ", 0), 0u) << result.err;
  }
}

}  // namespace
}  // namespace marlin::cli::testing
