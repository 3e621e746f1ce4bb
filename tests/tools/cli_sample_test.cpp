// The command-line faces of sampled simulation: `run --sample`, `sweep --sample`,
// `model --timing`, `validate --simulate`'s selection guide and `bench`.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "model/device/profile_loader.h"
#include "tests/tools/cli_runner.h"
#include "tools/cli/kernel_run.h"
#include "tools/cli/sampling.h"
#include "tools/cli/selection_guide.h"

namespace marlin::cli::testing {
namespace {

TEST(CliSample, RunReportsHowItSampled) {
  const nlohmann::json json =
      run_json({"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "16",
                "--n", "2048", "--k", "1024", "--sample", "--json"});
  const nlohmann::json& s = json.at("sampling");
  // K = 1024 = 4 K_high: sampled at 128 and 256. 32 threadgroups over 40 cores, one per core:
  // the slice is 1 of 32.
  EXPECT_EQ(s.at("k_values"), nlohmann::json::array({128, 256}));
  EXPECT_EQ(s.at("cores"), 1);
  EXPECT_DOUBLE_EQ(s.at("threadgroup_share").get<double>(), 1.0 / 32);
  // Work: 1/32 of the threadgroups at 128 + 256 of 1024 rows of K.
  EXPECT_DOUBLE_EQ(s.at("work_fraction").get<double>(), (128.0 + 256.0) / 1024 / 32);
  EXPECT_LT(json.at("simulator").at("instructions").get<std::int64_t>(),
            json.at("simulator").at("predicted_instructions").get<std::int64_t>());
  // The bound on the tested shapes, and the larger error measured on others.
  EXPECT_LT(s.at("error_bound").get<double>(), s.at("largest_measured_error").get<double>());
  // m4max's bandwidth is far from saturated: the slice keeps all of it.
  EXPECT_EQ(s.at("dram_share").get<double>(), 1.0);
  // One threadgroup per core: no pointer to precise sampling.
  EXPECT_EQ(s.at("precise_runs_whole"), false);
  // A slice keeps the device's L2 (3 MiB) for both samples; its reuses are not measured.
  EXPECT_EQ(s.at("l2_bytes"), nlohmann::json::array({3 << 20, 3 << 20}));
  EXPECT_TRUE(s.at("l2_overflow").is_null());
}

TEST(CliSample, PreciseRunSimulatesTheWholeGridWithKSamplesFourApart) {
  const nlohmann::json json =
      run_json({"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "16",
                "--n", "2048", "--k", "2048", "--sample", "--sample-precise", "--json"});
  const nlohmann::json& s = json.at("sampling");
  EXPECT_EQ(s.at("precision"), "precise");
  // 32 threadgroups, all simulated, at K_low = 128 and 4 K_low = 512 (2048 = 4 x 512).
  EXPECT_EQ(s.at("k_values"), nlohmann::json::array({128, 512}));
  EXPECT_EQ(s.at("cores"), 40);
  EXPECT_DOUBLE_EQ(s.at("threadgroup_share").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(s.at("work_fraction").get<double>(), (128.0 + 512.0) / 2048);
  EXPECT_DOUBLE_EQ(s.at("largest_measured_error").get<double>(), kPreciseLargestMeasuredError);
  // Reuses of this launch stay within m4max's 3 MiB L2: the samples keep all of it.
  EXPECT_EQ(s.at("l2_bytes"), nlohmann::json::array({3 << 20, 3 << 20}));
  EXPECT_EQ(s.at("l2_overflow").at("added_misses"), 0.0);
  const CliResult text =
      run_cli({"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "16", "--n",
               "2048", "--k", "2048", "--sample", "--sample-precise"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("sampled (precise): 40 of 40 cores"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("extrapolated to 2048; "), std::string::npos) << text.out;
  // Without the flag: fast sampling, one threadgroup of the 32.
  EXPECT_EQ(run_json({"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "16",
                      "--n", "2048", "--k", "2048", "--sample", "--json"})
                .at("sampling")
                .at("precision"),
            "fast");
}

TEST(CliSample, AFastSliceOfAMidSizedGridPointsToPreciseSampling) {
  // 320 x 2048 in 64x64 tiles: 5 x 32 = 160 threadgroups, 4 on the busiest of 40 cores. Fast
  // sampling slices it (more than 128); precise sampling would run it whole (at most 512).
  const std::vector<std::string> args{"run",    "--kernel", "marlin_gemm_fused_fp4",
                                      "--tile", "64x64x32", "--m",
                                      "320",    "--n",      "2048",
                                      "--k",    "256",      "--sample"};
  const CliResult text = run_cli(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("sampled: fast sampling was measured up to 7.0% off on sliced grids "
                          "like this one (several threadgroups per core, at most 512); "
                          "--sample-precise simulates the whole grid"),
            std::string::npos)
      << text.out;
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  const nlohmann::json fast = run_json(json_args).at("sampling");
  EXPECT_EQ(fast.at("cores"), 1);
  EXPECT_EQ(fast.at("precise_runs_whole"), true);
  json_args.push_back("--sample-precise");
  const nlohmann::json precise = run_json(json_args).at("sampling");
  EXPECT_EQ(precise.at("cores"), 40);
  EXPECT_EQ(precise.at("precise_runs_whole"), false);
}

TEST(CliSample, AWholeGridKeepsTheL2ItsFullRunDoesNotOverflow) {
  // 100 x 200: 4 x 2 threadgroups, half of them on the ragged last row, so the grid runs whole.
  const std::vector<std::string> args{"run",    "--kernel", "marlin_gemm_fused_fp4",
                                      "--tile", "64x64x32", "--m",
                                      "100",    "--n",      "200",
                                      "--k",    "1024",     "--sample",
                                      "--json"};
  std::vector<std::string> precise_args = args;
  precise_args.push_back("--sample-precise");
  for (const auto& a : {args, precise_args}) {
    const nlohmann::json s = run_json(a).at("sampling");
    EXPECT_EQ(s.at("cores"), 40);
    EXPECT_EQ(s.at("l2_bytes"), nlohmann::json::array({3 << 20, 3 << 20}));
    EXPECT_EQ(s.at("l2_overflow").at("added_misses"), 0.0);
  }
}

TEST(CliSample, AWholeGridWhoseFullRunOverflowsTheL2ScalesItsSamplesL2) {
  // On m1 (768 KiB of L2) marlin_gemm_fp4 64x64x32 at 128x1024x4096 reads 3 MiB of operands;
  // its 2 x 16 threadgroups, 4 per core, run whole at K = 128 and 256, whose reuse distances
  // grow with K past the L2, and would miss many more lines there. The samples replay with
  // 768 KiB x 128 / 4096 and x 256 / 4096.
  const std::vector<std::string> args{"run",    "--device", "m1",   "--kernel", "marlin_gemm_fp4",
                                      "--tile", "64x64x32", "--m",  "128",      "--n",
                                      "1024",   "--k",      "4096", "--sample"};
  const CliResult text = run_cli(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("extrapolated to 4096, L2 of 24 and 48 KiB (the full run's L2 "
                          "estimated to miss "),
            std::string::npos)
      << text.out;
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  const nlohmann::json s = run_json(json_args).at("sampling");
  EXPECT_EQ(s.at("k_values"), nlohmann::json::array({128, 256}));
  EXPECT_EQ(s.at("l2_bytes"), nlohmann::json::array({24'576, 49'152}));
  EXPECT_GE(s.at("l2_overflow").at("added_misses").get<double>(), kL2AddedMisses);
}

TEST(CliSample, ADramBoundSliceReplaysWithItsShareOfTheBandwidth) {
  // At 4 GB/s of DRAM the decode launch is DRAM-bound, so the slice replays again with its
  // distinct loaded bytes' share of the bandwidth. Its threadgroup (of 32) loads all of A
  // (16 x K halves: 32 K bytes), 64 of the 2048 weight columns (4 bits each: 32 K) and their
  // scales (one half per 128 rows: 1 K), against the problem's 32 K + 1024 K + 32 K.
  model::DeviceSpec device = model::load_device("m4max");
  device.memory.dram_bandwidth_bytes_per_s = 4e9;
  KernelRunRequest request;
  request.kernel = "marlin_gemm_fused_fp4";
  request.tile = analytic::Tile{64, 64, 32};
  request.problem = {.m = 16, .n = 2048, .k = 4096};
  request.sample = true;
  const KernelRunReport report = run_kernel(device, request);
  ASSERT_TRUE(report.sampling.has_value());
  EXPECT_DOUBLE_EQ(report.sampling->share, 1.0 / 32);
  EXPECT_NEAR(report.sampling->dram_share, 65.0 / 1088.0, 1e-12);
  // The same run on the device's own bandwidth is not DRAM-bound.
  const KernelRunReport fast = run_kernel(model::load_device("m4max"), request);
  ASSERT_TRUE(fast.sampling.has_value());
  EXPECT_EQ(fast.sampling->dram_share, 1.0);
}

TEST(CliSample, ReportsADramBoundReplay) {
  // A profile inheriting m4max with 4 GB/s of DRAM, beside a copy of its parent.
  const std::string profile = write_m4max_variant(
      "m4max-slow", R"({"name": "m4max-slow", "description": "m4max at 4 GB/s", "inherits": "m4max",
           "memory": {"dram_bandwidth": {"value": "4 GB/s", "kind": "estimate",
                                         "source": "test"}}})");
  const std::vector<std::string> args = {"run",      "--kernel", "marlin_gemm_fused_fp4",
                                         "--tile",   "64x64x32", "--m",
                                         "16",       "--n",      "2048",
                                         "--k",      "4096",     "--sample",
                                         "--device", profile};
  const CliResult text = run_cli(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  // The share of the test above: 65 K of the problem's 1088 K bytes.
  EXPECT_NEAR(run_json(json_args).at("sampling").at("dram_share").get<double>(), 65.0 / 1088.0,
              1e-12);
  EXPECT_NE(text.out.find("DRAM-bound: replayed with 5.97% of the DRAM bandwidth"),
            std::string::npos);
}

// A sampled run's replays take the run's host threads once nothing is left to dispatch; the
// results are those of one thread. Two launches that replay more than once: a whole grid whose
// samples replay again with the L2 in proportion (the m1 launch above, one wave), and the decode
// launch of the DRAM-bound tests above sliced to two cores, one threadgroup each, whose samples
// replay again with the slice's share of the bandwidth.
TEST(CliSample, ReplaysOnTheHostThreadsGiveTheResultsOfOne) {
  KernelRunRequest whole;
  whole.kernel = "marlin_gemm_fp4";
  whole.tile = analytic::Tile{64, 64, 32};
  whole.problem = {.m = 128, .n = 1024, .k = 4096};
  whole.sample = true;
  KernelRunRequest slice;
  slice.kernel = "marlin_gemm_fused_fp4";
  slice.tile = analytic::Tile{64, 64, 32};
  slice.problem = {.m = 16, .n = 2048, .k = 4096};
  slice.sample = true;
  slice.sample_cores = 2;
  model::DeviceSpec slow = model::load_device("m4max");
  slow.memory.dram_bandwidth_bytes_per_s = 4e9;
  const std::vector<std::pair<model::DeviceSpec, KernelRunRequest>> runs{
      {model::load_device("m1"), whole}, {slow, slice}};
  for (const auto& [device, request] : runs) {
    KernelRunRequest one = request;
    one.host_threads = 1;
    KernelRunRequest two = request;
    two.host_threads = 2;
    const KernelRunReport a = run_kernel(device, one);
    const KernelRunReport b = run_kernel(device, two);
    ASSERT_TRUE(a.sampling.has_value() && b.sampling.has_value());
    EXPECT_EQ(a.timing, b.timing) << request.kernel;
    EXPECT_EQ(a.sampling->l2_bytes, b.sampling->l2_bytes);
    EXPECT_EQ(a.sampling->dram_share, b.sampling->dram_share);
    EXPECT_EQ(a.timing.parallel_windows, 0);
    EXPECT_GT(b.timing.parallel_windows, 0) << request.kernel;
  }
  // Each launch took the path it is here for.
  const KernelRunReport w = run_kernel(model::load_device("m1"), whole);
  EXPECT_LT(w.sampling->l2_bytes.front(), w.sampling->device_l2_bytes);
  const KernelRunReport s = run_kernel(slow, slice);
  EXPECT_EQ(s.sampling->cores, 2);
  EXPECT_LT(s.sampling->dram_share, 1.0);
}

TEST(CliSample, RefusesWhatNeedsTheFullRun) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "1", "--n",
            "64", "--k", "64", "--sample", "--check"},
           {"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "1", "--n",
            "64", "--k", "64", "--sample", "--trace", "/tmp/marlin-sample-trace.json"},
           {"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "1", "--n",
            "64", "--k", "64", "--sample-cores", "2"},
           {"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "1", "--n",
            "64", "--k", "64", "--sample-precise"},
           {"model", "--workload", "llama2-7b-decode", "--timing", "sampled"}}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(CliSample, SweepCarriesTheSampleFlagThroughShards) {
  const std::string dir = ::testing::TempDir();
  const std::vector<std::string> base = {"sweep",
                                         "--m",
                                         "1,16",
                                         "--n",
                                         "256",
                                         "--k",
                                         "1024",
                                         "--tiles",
                                         "64x64x32",
                                         "--kernels",
                                         "marlin_gemm_fused_fp4",
                                         "--sample"};
  std::vector<std::string> whole = base;
  whole.insert(whole.end(), {"--json"});
  const nlohmann::json all = run_json(whole);
  EXPECT_TRUE(all.at("spec").at("sample").get<bool>());
  std::vector<std::string> merge = {"sweep", "--merge"};
  for (int i = 0; i < 2; ++i) {
    std::vector<std::string> shard = base;
    const std::string out = dir + "/sample_shard" + std::to_string(i) + ".json";
    shard.insert(shard.end(), {"--shard", std::to_string(i) + "/2", "--out", out});
    EXPECT_EQ(run_cli(shard).exit_code, 0);
    merge.push_back(out);
  }
  merge.push_back("--json");
  EXPECT_EQ(run_json(merge).at("results"), all.at("results"));
}

TEST(SelectionGuide, FastestIsTheMinimumAndHoldsFollowsTheBound) {
  const model::DeviceSpec device = model::load_device("m4max");
  const std::vector<GuideRow> rows = {
      {"tiny", "1", 1, 256, 128, "64x64x32 fused"},
      {"tiny refused", "1", 1, 256, 128, "no such configuration"},
  };
  const std::vector<GuideAnswer> answers = simulate_guide(device, rows, 2);
  ASSERT_EQ(answers.size(), 2u);
  for (const GuideAnswer& a : answers) {
    ASSERT_EQ(a.cells.size(), guide_configs().size());
    double best = 1e30;
    std::string best_name;
    double recommended = -1;
    for (const GuideCell& cell : a.cells) {
      ASSERT_TRUE(cell.seconds.has_value()) << cell.config << ": " << cell.refusal;
      if (*cell.seconds < best) {
        best = *cell.seconds;
        best_name = cell.config;
      }
      if (cell.config == a.row.recommended) recommended = *cell.seconds;
    }
    EXPECT_EQ(a.fastest, best_name);
    EXPECT_EQ(a.holds, recommended >= 0 && recommended <= best * (1 + kSampledErrorBound));
  }
  EXPECT_FALSE(answers[1].holds);  // a recommendation that is not a configuration never holds
}

TEST(CliBench, QuickRunReportsEveryCaseAgainstItsTarget) {
  const nlohmann::json json = run_json({"bench", "--quick", "--repeat", "2", "--json"});
  const nlohmann::json& cases = json.at("cases");
  ASSERT_EQ(cases.size(), 8u);
  // The repeated wall-time cases report the fastest of two runs, where its time went and the
  // range.
  for (const int timed : {0, 4}) {
    const std::string note = cases[timed].at("note").get<std::string>();
    EXPECT_NE(note.find("best of 2 ("), std::string::npos) << cases[timed];
    EXPECT_NE(note.find("engine "), std::string::npos) << cases[timed];
    EXPECT_NE(note.find(" + timing "), std::string::npos) << cases[timed];
  }
  for (const nlohmann::json& c : cases) {
    if (c.at("measured").is_null()) {
      EXPECT_FALSE(c.at("note").get<std::string>().empty());  // says why it was not run
      continue;
    }
    const double measured = c.at("measured").get<double>();
    const double target = c.at("target").get<double>();
    const bool higher = c.at("higher_is_better").get<bool>();
    // Times, rates and bytes are positive; an error may be exactly 0.
    if (c.at("unit") == "%") {
      EXPECT_GE(measured, 0) << c;
    } else {
      EXPECT_GT(measured, 0) << c;
    }
    if (measured > 0) {
      EXPECT_DOUBLE_EQ(c.at("ratio").get<double>(), higher ? target / measured : measured / target);
    }
    EXPECT_EQ(c.at("met").get<bool>(), higher ? measured >= target : measured <= target);
  }
  // The sampled decode run's error against the full run, from the cycles its note gives.
  const nlohmann::json& error = cases[2];
  EXPECT_EQ(error.at("unit"), "%");
  EXPECT_EQ(error.at("target").get<double>(), 2.0);
  std::string note = error.at("note").get<std::string>();
  std::erase(note, ',');
  long long sampled = 0;
  long long full = 0;
  ASSERT_EQ(std::sscanf(note.c_str(), "%lld sampled against %lld full cycles", &sampled, &full), 2)
      << note;
  EXPECT_DOUBLE_EQ(error.at("measured").get<double>(),
                   100 * std::abs(static_cast<double>(sampled - full)) / static_cast<double>(full));
  // Without --heavy there is no full 4096^3 run to compare the sampled one with.
  EXPECT_TRUE(cases[5].at("measured").is_null());
}

}  // namespace
}  // namespace marlin::cli::testing
