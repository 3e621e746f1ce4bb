// Full-fidelity runs that stream the engine's traces into the replay report exactly what runs
// keeping the whole traces report; runs of several dispatches or with --trace keep them whole.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "model/common/input_error.h"
#include "model/device/profile_loader.h"
#include "tests/tools/cli_runner.h"
#include "tools/cli/kernel_run.h"

namespace marlin::cli::testing {
namespace {

using ::testing::HasSubstr;

KernelRunRequest request_of(const std::string& kernel, std::optional<analytic::Tile> tile,
                            kernels::GemmProblem problem, unsigned host_threads) {
  KernelRunRequest request;
  request.kernel = kernel;
  request.tile = tile;
  request.problem = problem;
  request.host_threads = host_threads;
  request.check = true;
  return request;
}

// Runs `request` streamed and whole; expects the same report, streamed only when `streams`.
// Returns the waves of the last dispatch.
int expect_same_either_way(const model::DeviceSpec& device, KernelRunRequest request,
                           bool streams) {
  request.stream_traces = true;
  const KernelRunReport streamed = run_kernel(device, request);
  request.stream_traces = false;
  const KernelRunReport whole = run_kernel(device, request);
  EXPECT_EQ(streamed.streamed, streams);
  EXPECT_FALSE(whole.streamed);
  EXPECT_EQ(streamed.timing, whole.timing);
  EXPECT_EQ(streamed.dispatches.size(), whole.dispatches.size());
  for (std::size_t i = 0; i < whole.dispatches.size(); ++i) {
    EXPECT_EQ(streamed.dispatches[i].kernel, whole.dispatches[i].kernel);
    EXPECT_EQ(streamed.dispatches[i].threadgroup_memory_bytes,
              whole.dispatches[i].threadgroup_memory_bytes);
    EXPECT_EQ(streamed.dispatches[i].occupancy.resident_threadgroups,
              whole.dispatches[i].occupancy.resident_threadgroups);
  }
  EXPECT_TRUE(streamed.check_error && whole.check_error);
  EXPECT_EQ(streamed.check_error, whole.check_error);
  EXPECT_EQ(streamed.unwritten, whole.unwritten);
  return whole.timing.launches.back().waves;
}

TEST(CliStream, ManyWavesGiveTheSameReportStreamedAsWhole) {
  // m1: 8 cores. 128 x 1024 with 64x64 tiles is 32 threadgroups: one wave at the occupancy's
  // 13 per core, four at a cap of one. Ragged M and N add partial tiles (30 threadgroups, two
  // waves at two per core); the classic kernel's 48 take two waves at its own three per core.
  const model::DeviceSpec m1 = model::load_device("m1");
  KernelRunRequest fused = request_of("marlin_gemm_fused_fp4", analytic::Tile{64, 64, 32},
                                      {.m = 128, .n = 1024, .k = 256}, 2);
  EXPECT_EQ(expect_same_either_way(m1, fused, true), 1);
  fused.max_resident_threadgroups = 1;
  fused.host_threads = 1;
  EXPECT_EQ(expect_same_either_way(m1, fused, true), 4);
  KernelRunRequest ragged = request_of("marlin_gemm_fused_u4", analytic::Tile{64, 64, 32},
                                       {.m = 100, .n = 900, .k = 256}, 2);
  ragged.max_resident_threadgroups = 2;
  EXPECT_EQ(expect_same_either_way(m1, ragged, true), 2);
  EXPECT_EQ(
      expect_same_either_way(
          m1, request_of("matmul_tiled_32x32_f16", std::nullopt, {.m = 96, .n = 512, .k = 128}, 2),
          true),
      2);
}

TEST(CliStream, TheStripedKernelStreamsOnlyWithoutKSlices) {
  const model::DeviceSpec m1 = model::load_device("m1");
  KernelRunRequest striped = request_of("marlin_gemm_fp4_striped", analytic::Tile{64, 64, 32},
                                        {.m = 64, .n = 1024, .k = 512}, 2);
  (void)expect_same_either_way(m1, striped, true);
  striped.problem.k_parallel = 2;  // zero, GEMM and reduce: three dispatches
  (void)expect_same_either_way(m1, striped, false);
}

// The message run_kernel throws for `request` on `device`, streamed or whole.
std::string error_of(const model::DeviceSpec& device, KernelRunRequest request, bool stream) {
  request.stream_traces = stream;
  try {
    (void)run_kernel(device, request);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected InputError";
  return "";
}

TEST(CliStream, RefusalsGiveTheSameErrorStreamedAsWhole) {
  const KernelRunRequest request = request_of("marlin_gemm_fused_fp4", analytic::Tile{64, 64, 32},
                                              {.m = 16, .n = 1024, .k = 256}, 2);
  // The engine refuses the launch: 128 threads per threadgroup over the API limit.
  model::DeviceSpec narrow = model::load_device("m4max");
  narrow.limits.max_threads_per_threadgroup = 64;
  const std::string engine = error_of(narrow, request, true);
  EXPECT_THAT(engine, HasSubstr("128 threads per threadgroup exceed the device limit of 64"));
  EXPECT_EQ(engine, error_of(narrow, request, false));
  // The occupancy rule refuses it: a core holds fewer threads than a threadgroup.
  model::DeviceSpec small = model::load_device("m4max");
  small.limits.max_threads_per_core = 64;
  const std::string occupancy = error_of(small, request, true);
  EXPECT_THAT(occupancy,
              HasSubstr("m4max refuses marlin_gemm_fused_fp4_64x64x32: one threadgroup needs "
                        "128 threads, more than the 64 a core holds (threads limit)"));
  EXPECT_EQ(occupancy, error_of(small, request, false));
}

TEST(CliStream, TheReportSaysWhetherTheReplayRanBesideTheEngine) {
  const nlohmann::json json =
      run_json({"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "16",
                "--n", "512", "--k", "256", "--json"});
  EXPECT_EQ(json.at("simulator").at("streamed"), true);
  const CliResult text = run_cli({"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32",
                                  "--m", "16", "--n", "512", "--k", "256"});
  EXPECT_THAT(text.out,
              HasSubstr("(timing after the engine's workers, which the replay ran beside)"));
}

}  // namespace
}  // namespace marlin::cli::testing
