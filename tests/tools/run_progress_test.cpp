// The progress line of long runs (tools/cli/run_progress.h) and what `run` writes in it: the
// threadgroups the engine ran and the timing model replayed, of the launch's, once it has run
// longer than its delay; nothing for shorter runs, and the same report either way.
#include "tools/cli/run_progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>

#include "model/device/profile_loader.h"
#include "tools/cli/kernel_run.h"

namespace marlin::cli {
namespace {

using ::testing::MatchesRegex;
using namespace std::chrono_literals;

TEST(RunProgress, WritesNothingForARunShorterThanItsDelay) {
  std::ostringstream out;
  std::atomic<int> calls{0};
  {
    RunProgress progress(
        out, [&] { return std::to_string(++calls); }, 1h, 1s);
  }
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(calls.load(), 0);
}

TEST(RunProgress, RewritesItsLineInPlaceAndEndsItWithANewline) {
  std::ostringstream out;
  std::atomic<int> calls{0};
  RunProgress progress(
      out, [&] { return "step " + std::to_string(++calls); }, 0ms, 1h);
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (calls.load() == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_EQ(calls.load(), 1);
  progress.stop();  // the last line, then the newline
  EXPECT_EQ(out.str(), "\rstep 1\rstep 2\n");
  progress.stop();  // once only
  EXPECT_EQ(out.str(), "\rstep 1\rstep 2\n");
}

// The text after the last carriage return: the line a terminal shows at the end.
std::string last_line(const std::string& written) {
  return written.substr(written.rfind('\r') + 1);
}

KernelRunRequest fused(kernels::GemmProblem problem) {
  KernelRunRequest request;
  request.kernel = "marlin_gemm_fused_fp4";
  request.tile = analytic::Tile{64, 64, 32};
  request.problem = problem;
  request.host_threads = 2;
  return request;
}

TEST(RunProgress, AFullRunCountsTheLaunchsThreadgroupsStreamedOrWhole) {
  const model::DeviceSpec m1 = model::load_device("m1");
  // 128 x 1024 in 64x64 tiles: 2 x 16 = 32 threadgroups.
  KernelRunRequest request = fused({.m = 128, .n = 1024, .k = 256});
  const KernelRunReport quiet = run_kernel(m1, request);
  for (const bool stream : {true, false}) {
    std::ostringstream out;
    request.stream_traces = stream;
    request.progress = &out;
    request.progress_after = 0ms;
    const KernelRunReport shown = run_kernel(m1, request);
    EXPECT_EQ(shown.streamed, stream);
    EXPECT_EQ(shown.timing, quiet.timing);
    EXPECT_THAT(last_line(out.str()),
                MatchesRegex("run: engine 32/32 threadgroups, timing model 32/32, [0-9]+ s\n"))
        << out.str();
  }
}

TEST(RunProgress, SeveralDispatchesCountWithoutATotal) {
  // The striped kernel with two K slices: zero, GEMM and reduce dispatches.
  const model::DeviceSpec m1 = model::load_device("m1");
  KernelRunRequest request = fused({.m = 64, .n = 1024, .k = 512, .k_parallel = 2});
  request.kernel = "marlin_gemm_fp4_striped";
  std::ostringstream out;
  request.progress = &out;
  request.progress_after = 0ms;
  const KernelRunReport report = run_kernel(m1, request);
  ASSERT_EQ(report.dispatches.size(), 3u);
  std::uint64_t threadgroups = 0;
  for (const DispatchReport& d : report.dispatches) threadgroups += d.threadgroups.volume();
  const std::string n = std::to_string(threadgroups);
  EXPECT_THAT(
      last_line(out.str()),
      MatchesRegex("run: engine " + n + " threadgroups, timing model " + n + ", [0-9]+ s\n"))
      << out.str();
}

TEST(RunProgress, SampledRunsWriteNone) {
  std::ostringstream out;
  KernelRunRequest request = fused({.m = 128, .n = 1024, .k = 2048});
  request.sample = true;
  request.progress = &out;
  request.progress_after = 0ms;
  (void)run_kernel(model::load_device("m1"), request);
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace marlin::cli
