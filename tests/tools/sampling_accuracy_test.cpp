// The sampled simulation's error bound: on each shape, the cycles of `--sample`, fast and
// precise, are within kSampledErrorBound of the full-fidelity run's. The shapes cover every
// kernel family, a decode row, ragged M and N, K-parallel stripes and a launch whose last wave
// is partial, and a DRAM-bound decode launch; the runs are deterministic, so this is an exact
// check of the bound on these shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "model/device/profile_loader.h"
#include "tools/cli/kernel_run.h"

namespace marlin::cli {
namespace {

struct Shape {
  std::string device;
  std::string kernel;
  std::optional<analytic::Tile> tile;
  std::int64_t m, n, k;
  int k_parallel = 1;
  double dram_bytes_per_s = 0;  // 0: the device's DRAM bandwidth
};

void PrintTo(const Shape& s, std::ostream* os) {
  *os << s.device << " " << s.kernel << " " << s.m << "x" << s.n << "x" << s.k << " P"
      << s.k_parallel;
  if (s.dram_bytes_per_s > 0) *os << " DRAM " << s.dram_bytes_per_s / 1e9 << " GB/s";
}

const char* name_of(SamplePrecision precision) {
  return precision == SamplePrecision::kPrecise ? "precise" : "fast";
}

// Checks that the sampled run's cycles are within kSampledErrorBound of the full run's.
void expect_within_bound(const KernelRunReport& sampled, double full_cycles, const char* name) {
  const auto cycles = static_cast<double>(sampled.timing.total_cycles.count());
  EXPECT_LE(std::abs(cycles - full_cycles) / full_cycles, kSampledErrorBound)
      << name << ": full " << full_cycles << " sampled " << cycles;
}

class SampledAccuracy : public ::testing::TestWithParam<Shape> {};

TEST_P(SampledAccuracy, CyclesWithinTheBoundOfTheFullRun) {
  const Shape& s = GetParam();
  model::DeviceSpec device = model::load_device(s.device);
  if (s.dram_bytes_per_s > 0) device.memory.dram_bandwidth_bytes_per_s = s.dram_bytes_per_s;
  KernelRunRequest request;
  request.kernel = s.kernel;
  request.tile = s.tile;
  request.problem = {.m = s.m, .n = s.n, .k = s.k, .k_parallel = s.k_parallel};
  request.host_threads = 2;
  const KernelRunReport full = run_kernel(device, request);
  const double full_cycles = static_cast<double>(full.timing.total_cycles.count());
  request.sample = true;
  for (const SamplePrecision precision : {SamplePrecision::kFast, SamplePrecision::kPrecise}) {
    request.sample_precision = precision;
    const KernelRunReport sampled = run_kernel(device, request);
    ASSERT_TRUE(sampled.sampling.has_value());
    // The sample did less work than the full run: K was sampled or threadgroups were sliced.
    EXPECT_LT(sampled.sampling->work_fraction, 0.5) << name_of(precision);
    // A decode launch that DRAM bounds runs its whole grid (sampling.h, dram_bound_runs_whole).
    if (s.dram_bytes_per_s > 0) {
      EXPECT_EQ(sampled.sampling->cores, device.gpu.cores) << name_of(precision);
    }
    expect_within_bound(sampled, full_cycles, name_of(precision));
  }
}

// A launch whose full run overflows the L2 while samples at a small K would not fill it: on m1
// (768 KiB of L2), marlin_gemm_fp4 64x64x32 at 128x1024x4096 reads 784 operand bytes per 1 of
// K, 3 MiB in all. The samples' reuse distances say so (the full run's L2 misses many more
// lines), and both precisions replay their whole grid's samples with the L2 in proportion to
// their K (sample_l2.h), so they stay within the bound; with the device's L2 fast sampling was
// 13.6% off, precise 12.8%.
TEST(SampledAccuracyL2, SamplesFollowAnL2TheFullRunOverflows) {
  const model::DeviceSpec device = model::load_device("m1");
  KernelRunRequest request;
  request.kernel = "marlin_gemm_fp4";
  request.tile = analytic::Tile{64, 64, 32};
  request.problem = {.m = 128, .n = 1024, .k = 4096};
  request.host_threads = 2;
  const double full = static_cast<double>(run_kernel(device, request).timing.total_cycles.count());
  // The L2's capacity matters to this launch: with a 256 MiB L2 it takes over 10% less.
  model::DeviceSpec large_l2 = device;
  large_l2.memory.l2.size_bytes = std::int64_t{256} << 20;
  const double roomy =
      static_cast<double>(run_kernel(large_l2, request).timing.total_cycles.count());
  EXPECT_LT(roomy, 0.9 * full);
  request.sample = true;
  for (const SamplePrecision precision : {SamplePrecision::kFast, SamplePrecision::kPrecise}) {
    request.sample_precision = precision;
    const char* name = name_of(precision);
    const KernelRunReport sampled = run_kernel(device, request);
    ASSERT_TRUE(sampled.sampling.has_value());
    EXPECT_EQ(sampled.sampling->cores, device.gpu.cores) << name;  // the whole grid
    ASSERT_TRUE(sampled.sampling->l2_overflow.has_value()) << name;
    EXPECT_GE(sampled.sampling->l2_overflow->added_misses, kL2AddedMisses) << name;
    EXPECT_LT(sampled.sampling->l2_bytes.front(), device.memory.l2.size_bytes) << name;
    expect_within_bound(sampled, full, name);
  }
  // The same launch with the 256 MiB L2: nothing reaches beyond it, the samples keep all of it.
  request.sample_precision = SamplePrecision::kPrecise;
  const KernelRunReport kept = run_kernel(large_l2, request);
  ASSERT_TRUE(kept.sampling.has_value());
  ASSERT_TRUE(kept.sampling->l2_overflow.has_value());
  EXPECT_EQ(kept.sampling->l2_overflow->added_misses, 0.0);
  EXPECT_EQ(kept.sampling->l2_bytes.front(), large_l2.memory.l2.size_bytes);
}

const analytic::Tile k64x64x32{64, 64, 32};

INSTANTIATE_TEST_SUITE_P(
    Shapes, SampledAccuracy,
    ::testing::Values(
        // Decode: one row of tiles, one threadgroup per core.
        Shape{"m4max", "marlin_gemm_fused_fp4", k64x64x32, 16, 512, 1024},
        Shape{"m4max", "marlin_gemm_fused_u4zp", analytic::Tile{32, 128, 32}, 8, 1024, 2048},
        // Ragged M and N over several threadgroups per core (too ragged to slice: K sampled).
        Shape{"m1", "marlin_gemm_fused_fp4", k64x64x32, 200, 320, 1024},
        // Ragged N on one row of 63 threadgroups, 8 per core (run whole, K sampled).
        Shape{"m1", "marlin_gemm_fused_fp4", k64x64x32, 16, 4000, 1024},
        // Double-buffered kernel, the whole grid resident at once.
        Shape{"m4max", "marlin_gemm_fp4", k64x64x32, 128, 1024, 1024},
        // Stripes with two K slices, then the reduction.
        Shape{"m4max", "marlin_gemm_fp4_striped", k64x64x32, 32, 512, 2048, 2},
        // A classic FP16 matmul.
        Shape{"m4pro-16c", "matmul_tiled_32x32_f16", std::nullopt, 128, 256, 1024},
        // More threadgroups than slots: two waves, the last one partial.
        Shape{"m1", "marlin_gemm_fused_fp4", k64x64x32, 512, 960, 1024},
        // The same sliced (over 128 threadgroups): ragged N on one row of 141, and 9 x 15; both
        // two waves, the last partial.
        Shape{"m1", "marlin_gemm_fused_fp4", k64x64x32, 16, 9000, 1024},
        Shape{"m1", "marlin_gemm_fused_fp4", k64x64x32, 576, 960, 1024},
        // A DRAM-bound decode: m4max at 4 GB/s, one threadgroup per core. Its slice at the
        // slice's share of the bandwidth was 7.8% off; the whole grid runs in its place.
        Shape{"m4max", "marlin_gemm_fused_fp4", analytic::Tile{32, 128, 32}, 1, 4096, 2048, 1,
              4e9}));

}  // namespace
}  // namespace marlin::cli
