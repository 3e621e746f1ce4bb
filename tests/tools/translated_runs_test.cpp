// Runs build the traces of alike threadgroups by translation (sampling.h, alike_threadgroups):
// sampled and full runs give the same results as tracing every threadgroup on the engine.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "model/device/profile_loader.h"
#include "tools/cli/kernel_run.h"
#include "tools/cli/sampling.h"

namespace marlin::cli::testing {
namespace {

struct Case {
  std::string device;
  std::string kernel;
  std::optional<analytic::Tile> tile;
  kernels::GemmProblem problem;
  int sample_cores = 1;
  SamplePrecision precision = SamplePrecision::kFast;
  int simulated_cores = 0;  // the cores the sampled run simulates, checked when not 0
};

// Runs `c` sampled with and without translation; expects the same timing (and the cores it
// names) and returns the threadgroups translated.
std::uint64_t expect_same_timing(const Case& c) {
  const model::DeviceSpec device = model::load_device(c.device);
  KernelRunRequest request;
  request.kernel = c.kernel;
  request.tile = c.tile;
  request.problem = c.problem;
  request.host_threads = 2;
  request.sample = true;
  request.sample_cores = c.sample_cores;
  request.sample_precision = c.precision;
  request.translate_alike = false;
  const KernelRunReport all = run_kernel(device, request);
  request.translate_alike = true;
  const KernelRunReport translated = run_kernel(device, request);
  EXPECT_EQ(translated.timing, all.timing) << c.kernel;
  EXPECT_EQ(all.sampling->translated_threadgroups, 0u);
  EXPECT_EQ(translated.sampling->simulated_threadgroups, all.sampling->simulated_threadgroups);
  if (c.simulated_cores != 0) {
    EXPECT_EQ(translated.sampling->cores, c.simulated_cores) << c.kernel;
  }
  return translated.sampling->translated_threadgroups;
}

// Each case translates some threadgroups and gives the same timing as running them all.
void expect_translated_with_the_same_timing(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    EXPECT_GT(expect_same_timing(c), 0u) << c.device << " " << c.kernel << " " << c.problem.m << "x"
                                         << c.problem.n << "x" << c.problem.k;
  }
}

TEST(SampledTranslation, SlicesGiveTheSameTimingWithTranslatedThreadgroups) {
  const analytic::Tile tile{64, 64, 32};
  expect_translated_with_the_same_timing({
      // m1 (8 cores): 768 x 768 with 64x64 tiles is 144 threadgroups (over 128, so sliced), a
      // slice of 18 on one core, at K = 128 and 256 of 1024.
      {.device = "m1",
       .kernel = "marlin_gemm_fused_fp4",
       .tile = tile,
       .problem = {.m = 768, .n = 768, .k = 1024},
       .simulated_cores = 1},
      // Two cores' slice, the double-buffered kernel.
      {.device = "m1",
       .kernel = "marlin_gemm_fp4",
       .tile = tile,
       .problem = {.m = 768, .n = 768, .k = 1024},
       .sample_cores = 2,
       .simulated_cores = 2},
      // Zero points (20 x 8 threadgroups), and the classic tiled kernel (12 x 16).
      {.device = "m1",
       .kernel = "marlin_gemm_fused_u4zp",
       .tile = analytic::Tile{32, 128, 32},
       .problem = {.m = 640, .n = 1024, .k = 1024},
       .simulated_cores = 1},
      {.device = "m1",
       .kernel = "matmul_tiled_32x32_f16",
       .tile = std::nullopt,
       .problem = {.m = 384, .n = 512, .k = 512},
       .simulated_cores = 1},
  });
}

TEST(SampledTranslation, RaggedEdgesAndWholeGridsGiveTheSameTiming) {
  const analytic::Tile tile{64, 64, 32};
  expect_translated_with_the_same_timing({
      // Ragged M and N: 24 x 24 threadgroups, 47 on an edge (under 10%), sliced to 72 in a
      // block that reaches neither edge; and 8 x 16, 23 on an edge, simulated whole.
      {.device = "m1",
       .kernel = "marlin_gemm_fused_fp4",
       .tile = tile,
       .problem = {.m = 1500, .n = 1500, .k = 1024},
       .simulated_cores = 1},
      {.device = "m1",
       .kernel = "marlin_gemm_fused_fp4",
       .tile = tile,
       .problem = {.m = 500, .n = 1000, .k = 1024},
       .simulated_cores = 8},
      // A decode row simulated whole: one ragged row of alike threadgroups but the last column.
      {.device = "m4pro-16c",
       .kernel = "marlin_gemm_fused_fp4",
       .tile = tile,
       .problem = {.m = 16, .n = 1000, .k = 1024},
       .sample_cores = 16},
      // Precise sampling of a whole grid of several rows.
      {.device = "m1",
       .kernel = "marlin_gemm_fused_fp4",
       .tile = tile,
       .problem = {.m = 192, .n = 512, .k = 2048},
       .precision = SamplePrecision::kPrecise},
  });
}

TEST(SampledTranslation, TheStripedKernelRunsEveryThreadgroup) {
  EXPECT_EQ(expect_same_timing({"m1",
                                "marlin_gemm_fp4_striped",
                                analytic::Tile{64, 64, 32},
                                {.m = 128, .n = 512, .k = 2048, .k_parallel = 2}}),
            0u);
}

// Runs `request` (a full run) with and without translation; expects the same report and returns
// the threadgroups translated.
std::uint64_t expect_same_full_run(const std::string& device_name, KernelRunRequest request) {
  const model::DeviceSpec device = model::load_device(device_name);
  request.check = true;
  request.host_threads = 2;
  request.translate_alike = false;
  const KernelRunReport all = run_kernel(device, request);
  request.translate_alike = true;
  const KernelRunReport translated = run_kernel(device, request);
  EXPECT_EQ(translated.timing, all.timing) << request.kernel;
  EXPECT_EQ(translated.check_error, all.check_error);
  EXPECT_LT(*translated.check_error, translated.check_bound);
  EXPECT_EQ(translated.unwritten, 0);
  EXPECT_EQ(translated.streamed, all.streamed);
  EXPECT_EQ(all.translated_threadgroups, 0u);
  EXPECT_EQ(translated.threadgroups, all.threadgroups);
  return translated.translated_threadgroups;
}

KernelRunRequest full_request(const std::string& kernel, std::optional<analytic::Tile> tile,
                              kernels::GemmProblem problem) {
  KernelRunRequest request;
  request.kernel = kernel;
  request.tile = tile;
  request.problem = problem;
  return request;
}

TEST(FullRunTranslation, StreamedAndWholeRunsGiveTheSameReportWithTranslatedThreadgroups) {
  // m1 (8 cores): 4 x 8 tiles, one wave; streamed (the default) and whole.
  KernelRunRequest fused = full_request("marlin_gemm_fused_fp4", analytic::Tile{64, 64, 32},
                                        {.m = 256, .n = 512, .k = 256});
  // 32 threadgroups: the base, its two neighbours and two checks ran traced.
  EXPECT_EQ(expect_same_full_run("m1", fused), 27u);
  fused.stream_traces = false;
  EXPECT_EQ(expect_same_full_run("m1", fused), 27u);
  // Ragged M and N: the last row and column run traced (8 x 4 tiles, 7 x 3 alike: 21, of which
  // the base, its neighbours and two checks are probes).
  EXPECT_EQ(expect_same_full_run("m1", full_request("marlin_gemm_fp4", analytic::Tile{64, 64, 32},
                                                    {.m = 200, .n = 500, .k = 256})),
            16u);
  EXPECT_GT(
      expect_same_full_run("m1", full_request("marlin_gemm_fused_u4zp", analytic::Tile{32, 128, 32},
                                              {.m = 64, .n = 1024, .k = 256})),
      0u);
  EXPECT_GT(expect_same_full_run("m1", full_request("matmul_tiled_32x32_f16", std::nullopt,
                                                    {.m = 128, .n = 128, .k = 128})),
            0u);
}

TEST(SampledTranslation, AlikeThreadgroupsLeaveOutTheRaggedEdges) {
  const kernels::GemmKernel fused =
      kernels::find_gemm_kernel("marlin_gemm_fused_fp4", analytic::Tile{64, 64, 32});
  // 1000 = 15 * 64 + 40 columns, 500 = 7 * 64 + 52 rows: 16 x 8 tiles, 15 x 7 alike.
  const sim::AlikeThreadgroups ragged = alike_threadgroups(fused, {.m = 500, .n = 1000, .k = 64});
  EXPECT_EQ(ragged.x, 15u);
  EXPECT_EQ(ragged.y, 7u);
  // A single row is alike throughout, however ragged; whole tiles are all alike.
  const sim::AlikeThreadgroups row = alike_threadgroups(fused, {.m = 16, .n = 1024, .k = 64});
  EXPECT_EQ(row.x, 16u);
  EXPECT_EQ(row.y, 1u);
  const kernels::GemmKernel striped =
      kernels::find_gemm_kernel("marlin_gemm_fp4_striped", analytic::Tile{64, 64, 32});
  EXPECT_EQ(alike_threadgroups(striped, {.m = 128, .n = 512, .k = 2048}).x, 0u);
}

}  // namespace
}  // namespace marlin::cli::testing
