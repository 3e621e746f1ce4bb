// The largest sampling errors the reports state: `run --sample` says its cycles are within
// kSampledErrorBound of a full run on the tested shapes (tests/tools/sampling_accuracy_test.cpp)
// and up to a figure off on the others measured (SamplingReport::largest_measured_error: fast
// sampling's slices kLargestMeasuredSlicedError, its whole grids kLargestMeasuredWholeGridError,
// precise sampling kPreciseLargestMeasuredError). The others measured are the larger shapes of
// docs/sampling.md; each runs here in full, with fast sampling and with precise sampling, so
// that a change that moves an error beyond the figure its report states fails, and so does one
// that leaves a figure larger than any error it covers: the shape that sets each figure must
// still reach it. The runs are deterministic. A shape takes 5 to 20 s on two host threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "model/analytic/tile.h"
#include "model/device/profile_loader.h"
#include "tools/cli/kernel_run.h"

namespace marlin::cli {
namespace {

struct MeasuredShape {
  std::string device;
  std::string kernel;
  analytic::Tile tile;
  std::int64_t m, n, k;
};

void PrintTo(const MeasuredShape& s, std::ostream* os) {
  *os << s.device << " " << s.kernel << " " << analytic::tile_name(s.tile) << " at " << s.m << "x"
      << s.n << "x" << s.k;
}

bool same_shape(const MeasuredShape& a, const MeasuredShape& b) {
  return a.device == b.device && a.kernel == b.kernel && a.tile.tm == b.tile.tm &&
         a.tile.tn == b.tile.tn && a.tile.tk == b.tile.tk && a.m == b.m && a.n == b.n && a.k == b.k;
}

// The shapes that set the stated figures (docs/sampling.md, "Accuracy").
const MeasuredShape kSetsSlicedFigure{"m4max", "marlin_gemm_fp4", {64, 64, 32}, 448, 3072, 2048};
const MeasuredShape kSetsWholeGridFigure{"m1", "marlin_gemm_fp4", {128, 64, 16}, 512, 1024, 2048};
const MeasuredShape kSetsPreciseFigure{"m1", "marlin_gemm_fp4", {64, 64, 32}, 256, 1024, 4096};

// (sampled - full) / full of the predicted cycles.
double signed_error_of(const KernelRunReport& sampled, const KernelRunReport& full) {
  const auto f = static_cast<double>(full.timing.total_cycles.count());
  return (static_cast<double>(sampled.timing.total_cycles.count()) - f) / f;
}

double error_of(const KernelRunReport& sampled, const KernelRunReport& full) {
  return std::abs(signed_error_of(sampled, full));
}

// The sampled run's error is within the figure its report states; when `s` is the shape that
// sets `figure`, the report states that figure and the error reaches it: the figure is the
// largest error measured, rounded up to the hundredth of a percent it is stated with.
void expect_within_its_figure(const MeasuredShape& s, const KernelRunReport& sampled,
                              const KernelRunReport& full, const MeasuredShape& sets, double figure,
                              const char* name) {
  ASSERT_TRUE(sampled.sampling.has_value()) << name;
  const double error = error_of(sampled, full);
  const double stated = sampled.sampling->largest_measured_error;
  EXPECT_LE(error, stated) << name;
  if (!same_shape(s, sets)) return;
  EXPECT_EQ(stated, figure) << name;
  EXPECT_GT(error, figure - 1e-4) << name;
}

class MeasuredSamplingError : public ::testing::TestWithParam<MeasuredShape> {};

TEST_P(MeasuredSamplingError, WithinTheFigureTheReportsState) {
  const MeasuredShape& s = GetParam();
  const model::DeviceSpec device = model::load_device(s.device);
  KernelRunRequest request;
  request.kernel = s.kernel;
  request.tile = s.tile;
  request.problem = {.m = s.m, .n = s.n, .k = s.k};
  request.host_threads = 2;
  const KernelRunReport full = run_kernel(device, request);
  request.sample = true;
  const KernelRunReport fast = run_kernel(device, request);
  // A fast run's figure is that of a slice or of a whole grid, as it ran.
  const bool whole = fast.sampling && fast.sampling->cores == device.gpu.cores;
  expect_within_its_figure(s, fast, full, whole ? kSetsWholeGridFigure : kSetsSlicedFigure,
                           whole ? kLargestMeasuredWholeGridError : kLargestMeasuredSlicedError,
                           "fast");
  request.sample_precision = SamplePrecision::kPrecise;
  const KernelRunReport precise = run_kernel(device, request);
  expect_within_its_figure(s, precise, full, kSetsPreciseFigure, kPreciseLargestMeasuredError,
                           "precise");
  // One line a shape, for the tables of docs/sampling.md.
  std::printf(
      "measured: %s %s %s %lldx%lldx%lld: full %lld cycles, fast %+.2f%% (%s), "
      "precise %+.2f%%\n",
      s.device.c_str(), s.kernel.c_str(), analytic::tile_name(s.tile).c_str(),
      static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k),
      static_cast<long long>(full.timing.total_cycles.count()), 100 * signed_error_of(fast, full),
      whole ? "whole" : "slice", 100 * signed_error_of(precise, full));
}

INSTANTIATE_TEST_SUITE_P(
    DocumentedShapes, MeasuredSamplingError,
    ::testing::Values(
        // m4max (40 cores): grids of 48 to 1024 threadgroups, decode rows among them.
        MeasuredShape{"m4max", "marlin_gemm_fp4", {64, 64, 32}, 320, 2048, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {64, 64, 32}, 256, 4096, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {32, 128, 32}, 256, 4096, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fp4", {64, 64, 32}, 256, 4096, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fp4", {128, 64, 16}, 512, 4096, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {64, 64, 32}, 512, 4096, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fp4", {64, 64, 32}, 512, 4096, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {32, 128, 32}, 1, 22016, 4096},
        MeasuredShape{"m4max", "marlin_gemm_fp4", {64, 64, 32}, 384, 2048, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {64, 64, 32}, 192, 4096, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fp4", {128, 64, 16}, 384, 4096, 2048},
        kSetsSlicedFigure,
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {128, 64, 16}, 640, 4096, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fused_u4", {64, 64, 32}, 256, 3072, 4096},
        MeasuredShape{"m4max", "marlin_gemm_fp4", {64, 64, 32}, 300, 2000, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fused_u4zp", {32, 128, 32}, 128, 4096, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {32, 128, 32}, 64, 4096, 4096},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {64, 64, 32}, 128, 4096, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fp4", {128, 64, 16}, 512, 2048, 2048},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {32, 128, 32}, 1, 6144, 4096},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {32, 128, 32}, 1, 12288, 4096},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {32, 128, 32}, 1, 14336, 4096},
        MeasuredShape{"m4max", "marlin_gemm_fp4", {64, 64, 32}, 256, 2048, 4096},
        MeasuredShape{"m4max", "marlin_gemm_fp4", {64, 64, 32}, 128, 4096, 4096},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {64, 64, 32}, 192, 2048, 4096},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {128, 128, 16}, 256, 4096, 4096},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {64, 64, 32}, 16, 4096, 11008},
        MeasuredShape{"m4max", "marlin_gemm_fused_fp4", {64, 64, 32}, 1024, 4096, 2048},
        // Devices of 8, 16 and 32 cores and smaller L2s.
        kSetsPreciseFigure, kSetsWholeGridFigure,
        MeasuredShape{"m1", "marlin_gemm_fused_fp4", {64, 64, 32}, 256, 1024, 4096},
        MeasuredShape{"m1", "marlin_gemm_fp4", {64, 64, 32}, 128, 2048, 2048},
        MeasuredShape{"m1", "marlin_gemm_fused_fp4", {64, 64, 32}, 16, 4000, 1024},
        MeasuredShape{"m1", "marlin_gemm_fused_fp4", {64, 64, 32}, 512, 960, 1024},
        MeasuredShape{"m1", "marlin_gemm_fused_fp4", {32, 128, 32}, 128, 2048, 4096},
        MeasuredShape{"m1", "marlin_gemm_fused_fp4", {64, 64, 32}, 512, 1024, 2048},
        MeasuredShape{"m1", "marlin_gemm_fused_u4zp", {32, 128, 32}, 64, 4096, 4096},
        MeasuredShape{"m1", "marlin_gemm_fp4", {64, 64, 32}, 128, 1024, 4096},
        MeasuredShape{"m1", "marlin_gemm_fp4", {128, 64, 16}, 256, 1024, 4096},
        MeasuredShape{"m1", "marlin_gemm_fused_u4zp", {32, 128, 32}, 64, 2048, 4096},
        MeasuredShape{"m1max", "marlin_gemm_fp4", {64, 64, 32}, 256, 2048, 4096},
        MeasuredShape{"m1max", "marlin_gemm_fused_fp4", {64, 64, 32}, 256, 2048, 4096},
        MeasuredShape{"m1max", "marlin_gemm_fused_fp4", {32, 128, 32}, 128, 4096, 4096},
        MeasuredShape{"m4pro-16c", "marlin_gemm_fused_fp4", {64, 64, 32}, 512, 1024, 2048},
        MeasuredShape{"m4pro-16c", "marlin_gemm_fused_fp4", {32, 128, 32}, 128, 4096, 2048},
        MeasuredShape{"m4pro-16c", "marlin_gemm_fp4", {64, 64, 32}, 256, 2048, 2048}));

}  // namespace
}  // namespace marlin::cli
