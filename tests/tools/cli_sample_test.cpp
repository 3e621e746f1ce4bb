// The command-line faces of sampled simulation: `run --sample`, `sweep --sample`,
// `model --timing`, `validate --simulate`'s selection guide and `bench`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "model/device/profile_loader.h"
#include "tests/tools/cli_runner.h"
#include "tools/cli/args.h"
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
  // The bound on the tested shapes, and the larger error measured on others: a slice's.
  EXPECT_LT(s.at("error_bound").get<double>(), s.at("largest_measured_error").get<double>());
  EXPECT_DOUBLE_EQ(s.at("largest_measured_error").get<double>(), kLargestMeasuredSlicedError);
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
    // Each states the largest error measured with its method: fast sampling of a whole grid,
    // or precise sampling.
    EXPECT_DOUBLE_EQ(s.at("largest_measured_error").get<double>(),
                     s.at("precision") == "fast" ? kLargestMeasuredWholeGridError
                                                 : kPreciseLargestMeasuredError);
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

// m4max with 4 GB/s of DRAM, where decode launches are DRAM-bound.
model::DeviceSpec m4max_at_4_gb_per_s() {
  model::DeviceSpec device = model::load_device("m4max");
  device.memory.dram_bandwidth_bytes_per_s = 4e9;
  return device;
}

// The sampled run of marlin_gemm_fused_fp4 64x64x32 at 16 x n x 4096: one row of n / 64
// threadgroups.
KernelRunRequest sampled_decode(std::int64_t n) {
  KernelRunRequest request;
  request.kernel = "marlin_gemm_fused_fp4";
  request.tile = analytic::Tile{64, 64, 32};
  request.problem = {.m = 16, .n = n, .k = 4096};
  request.sample = true;
  return request;
}

TEST(CliSample, ADramBoundSliceReplaysWithItsShareOfTheBandwidth) {
  // At 4 GB/s of DRAM the decode launch is DRAM-bound; its grid, one row of 136 threadgroups
  // (4 per core), is too large to run whole, so the slice replays again with its distinct loaded
  // bytes' share of the bandwidth. Its four threadgroups load all of A (16 x K halves: 32 units
  // of 4 KiB), 256 of the 8704 weight columns (4 bits each: 128 units) and their scales (one
  // half per 128 rows: 4 units), against the problem's 32 + 4352 + 136 units.
  const model::DeviceSpec device = m4max_at_4_gb_per_s();
  const KernelRunRequest request = sampled_decode(8704);
  const KernelRunReport report = run_kernel(device, request);
  ASSERT_TRUE(report.sampling.has_value());
  EXPECT_DOUBLE_EQ(report.sampling->share, 4.0 / 136);
  EXPECT_NEAR(report.sampling->dram_share, 164.0 / 4520.0, 1e-12);
  EXPECT_FALSE(report.sampling->dram_bound_whole);
  // The same run on the device's own bandwidth is not DRAM-bound.
  const KernelRunReport fast = run_kernel(model::load_device("m4max"), request);
  ASSERT_TRUE(fast.sampling.has_value());
  EXPECT_EQ(fast.sampling->dram_share, 1.0);
}

TEST(CliSample, ADramBoundDecodeSliceRunsTheWholeGrid) {
  // At 4 GB/s the decode launch of 32 threadgroups, one per core, is DRAM-bound: its slice of
  // one threadgroup outran DRAM, and the whole grid runs in its place.
  const model::DeviceSpec device = m4max_at_4_gb_per_s();
  const KernelRunRequest request = sampled_decode(2048);
  const KernelRunReport report = run_kernel(device, request);
  ASSERT_TRUE(report.sampling.has_value());
  EXPECT_TRUE(report.sampling->dram_bound_whole);
  EXPECT_EQ(report.sampling->cores, device.gpu.cores);
  EXPECT_DOUBLE_EQ(report.sampling->share, 1.0);
  EXPECT_EQ(report.sampling->dram_share, 1.0);
  // It is the run that --sample-cores 40 asks for, plus the slice's work: the same cycles.
  KernelRunRequest whole = request;
  whole.sample_cores = device.gpu.cores;
  const KernelRunReport asked = run_kernel(device, whole);
  ASSERT_TRUE(asked.sampling.has_value());
  EXPECT_FALSE(asked.sampling->dram_bound_whole);
  EXPECT_EQ(report.timing.total_cycles, asked.timing.total_cycles);
  EXPECT_GT(report.sampling->work_fraction, asked.sampling->work_fraction);
  EXPECT_GT(report.sampling->simulated_instructions, asked.sampling->simulated_instructions);
  // On the device's own bandwidth the slice stays.
  const KernelRunReport fast = run_kernel(model::load_device("m4max"), request);
  ASSERT_TRUE(fast.sampling.has_value());
  EXPECT_FALSE(fast.sampling->dram_bound_whole);
  EXPECT_EQ(fast.sampling->cores, 1);
}

TEST(CliSample, ReportsADramBoundReplay) {
  // A profile inheriting m4max with 4 GB/s of DRAM, beside a copy of its parent.
  const std::string profile = write_m4max_variant(
      "m4max-slow", R"({"name": "m4max-slow", "description": "m4max at 4 GB/s", "inherits": "m4max",
           "memory": {"dram_bandwidth": {"value": "4 GB/s", "kind": "estimate",
                                         "source": "test"}}})");
  const std::vector<std::string> args = {"run",      "--kernel", "marlin_gemm_fused_fp4",
                                         "--tile",   "64x64x32", "--m",
                                         "16",       "--n",      "8704",
                                         "--k",      "4096",     "--sample",
                                         "--device", profile};
  const CliResult text = run_cli(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  // The share of the test above: 164 of the problem's 4520 units of 4 KiB.
  const nlohmann::json sampling = run_json(json_args).at("sampling");
  EXPECT_NEAR(sampling.at("dram_share").get<double>(), 164.0 / 4520.0, 1e-12);
  EXPECT_EQ(sampling.at("dram_bound_whole"), false);
  EXPECT_NE(text.out.find("DRAM-bound: replayed with 3.63% of the DRAM bandwidth"),
            std::string::npos)
      << text.out;
  // The decode launch of 32 threadgroups runs whole, and says why.
  std::vector<std::string> decode = args;
  decode[8] = "2048";  // --n
  const CliResult whole = run_cli(decode);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_NE(whole.out.find("40 of 40 cores (100.00% of the threadgroups)"), std::string::npos)
      << whole.out;
  EXPECT_NE(whole.out.find("DRAM-bound: its slice outran DRAM, so the whole grid ran"),
            std::string::npos)
      << whole.out;
  decode.push_back("--json");
  EXPECT_EQ(run_json(decode).at("sampling").at("dram_bound_whole"), true);
}

// A sampled run's replays take the run's host threads once nothing is left to dispatch; the
// results are those of one thread. Two launches that replay more than once: a whole grid whose
// samples replay again with the L2 in proportion (the m1 launch above, one wave), and the wide
// decode launch of the DRAM-bound tests above sliced to two cores, four threadgroups each,
// whose samples replay again with the slice's share of the bandwidth.
TEST(CliSample, ReplaysOnTheHostThreadsGiveTheResultsOfOne) {
  KernelRunRequest whole;
  whole.kernel = "marlin_gemm_fp4";
  whole.tile = analytic::Tile{64, 64, 32};
  whole.problem = {.m = 128, .n = 1024, .k = 4096};
  whole.sample = true;
  KernelRunRequest slice = sampled_decode(8704);
  slice.sample_cores = 2;
  const model::DeviceSpec slow = m4max_at_4_gb_per_s();
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
  ASSERT_EQ(cases.size(), 9u);
  // The repeated wall-time cases report the fastest of two runs, where its time went and the
  // range.
  for (const int timed : {0, 4}) {
    const std::string note = cases[timed].at("note").get<std::string>();
    EXPECT_NE(note.find("best of 2 ("), std::string::npos) << cases[timed];
    EXPECT_NE(note.find("engine "), std::string::npos) << cases[timed];
    EXPECT_NE(note.find(" + timing "), std::string::npos) << cases[timed];
  }
  // The full decode run's note says how its replay went on the host threads: in windows once
  // the engine's workers are done (a one-wave launch of 64 threadgroups on 40 cores), never
  // on a host of one core; none either when the replay, beside the workers, had caught up
  // with them by then (a host loaded by other work slows the workers most: they yield). Each
  // stop leaves windows before it.
  {
    std::string note = cases[0].at("note").get<std::string>();
    std::erase(note, ',');
    const std::size_t at = note.find("parallel replay: ");
    ASSERT_NE(at, std::string::npos) << note;
    long long windows = -1;
    long long stops = -1;
    ASSERT_EQ(std::sscanf(note.c_str() + at, "parallel replay: %lld windows %lld stops", &windows,
                          &stops),
              2)
        << note;
    EXPECT_GE(windows, 0) << note;
    if (host_cores() < 2) {
      EXPECT_EQ(windows, 0) << note;
    }
    EXPECT_GE(stops, 0) << note;
    EXPECT_LE(stops, windows) << note;
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
  // How busy the host's cores were: the least busy of the two timed runs (the sweep does not
  // run with --quick), each named in the note with its percentage.
  const nlohmann::json& busy = cases[7];
  EXPECT_EQ(busy.at("unit"), "%");
  EXPECT_TRUE(busy.at("higher_is_better").get<bool>());
  EXPECT_EQ(busy.at("target").get<double>(), 90.0);
  note = busy.at("note").get<std::string>();
  double full_busy = 0;
  double sampled_busy = 0;
  unsigned cores = 0;
  ASSERT_EQ(std::sscanf(note.c_str(), "full 16x4096x1024 %lf%%, sampled 4096x4096x4096 %lf%%; %u",
                        &full_busy, &sampled_busy, &cores),
            3)
      << note;
  EXPECT_EQ(cores, host_cores());
  // The note rounds to whole percents; a process cannot keep more than all the host's cores busy.
  EXPECT_NEAR(busy.at("measured").get<double>(), std::min(full_busy, sampled_busy), 0.5) << note;
  for (const double percent : {full_busy, sampled_busy}) {
    EXPECT_GT(percent, 0) << note;
    EXPECT_LE(percent, 101) << note;
  }
}

}  // namespace
}  // namespace marlin::cli::testing
