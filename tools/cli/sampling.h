// Sampled simulation of one GEMM run: simulate a representative part of the work in full
// detail and extrapolate the rest (docs/sampling.md).
//
// Two reductions, each applied only when it pays:
// - K sampling. A GEMM's main loop repeats the same step over K, so the predicted cycles are
//   affine in K once the pipeline is full. The run is simulated at two reduced lengths
//   K_low < K_high = 2 K_low (multiples of the tile's K step, the scale group and the
//   K-parallel factor; K_low of eight K steps when the slice is small enough, four otherwise)
//   and the cycles are extrapolated along the line through them.
// - Threadgroup slicing. Threadgroups of a launch run near-identical traces, and the launch
//   ends when its most loaded core does: ceil(T / cores) threadgroups. The slice runs that
//   many threadgroups per simulated core, taken from a block at the grid's origin shaped like
//   the grid, so they share A rows and weight columns as the full launch's do (the striped
//   kernel, whose last threadgroups may be idle: every cores-th one). It runs on a device of
//   that many cores whose L2 port is scaled to its share of the threadgroups. The slice
//   fetches every line itself: in the full launch the threadgroups sharing a line start
//   together and wait for the same fill. Its DRAM keeps the device's bandwidth, which the rest
//   of the device's traffic barely uses, unless the prediction would read the problem's
//   operands faster than DRAM can (saturates_dram): then the slice gets its share of the
//   bandwidth. Slicing is skipped when many threadgroups sit on a ragged edge, when a grid of
//   at most 128 threadgroups has more than one on its busiest core (a slice's few share lines
//   among themselves, not as the grid's do), and for a striped launch with no more
//   threadgroups than cores (plan_sampling).
// Precise sampling (SamplePrecision::kPrecise) trades time for accuracy: grids of up to
// kPreciseWholeGrid threadgroups are simulated whole, with K samples kPreciseKRatio apart
// instead of 2 when K allows, which averages the slope over more K steps. A whole grid's K
// samples, fast or precise, replay with the L2 in proportion to their K when their reuse
// distances say the full run's L2 misses many more lines (sample_l2.h).
// Contract: the cycles of a sampled run are within kSampledErrorBound of the full run's on the
// shapes tests/tools/sampling_accuracy_test.cpp checks; the bound is a measured property of the
// method, not a proof for every shape: larger shapes measured in docs/sampling.md are off by up
// to kLargestMeasuredSampledError (precise: kPreciseLargestMeasuredError), which
// tests/measured/sampling_measured_shapes_test.cpp checks on them.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/launch/gemm_runner.h"
#include "model/device/device_spec.h"
#include "model/timing/cycles.h"
#include "model/timing/timing_run.h"
#include "sim/runtime/launch.h"
#include "tools/cli/sample_l2.h"

namespace marlin::cli {

inline constexpr double kSampledErrorBound = 0.02;  // the target of docs/performance.md
// The largest error measured on shapes outside the tested ones, on grids that fast sampling
// slices and precise sampling runs whole (docs/sampling.md, "Accuracy": marlin_gemm_fp4 64x64x32
// at 448x3072x2048 on m4max, +7.010%), rounded up to a hundredth of a percent.
inline constexpr double kLargestMeasuredSlicedError = 0.0701;
// The largest error measured on any shape outside the tested ones: that of a slice (above).
// DRAM-bound decode slices, measured up to +7.80% off, run whole (dram_bound_runs_whole).
inline constexpr double kLargestMeasuredSampledError = kLargestMeasuredSlicedError;
// The largest error of fast sampling measured on shapes outside the tested ones whose whole
// grid it simulates (marlin_gemm_fp4 128x64x16 at 512x1024x2048 on m1, +5.439%), rounded up to
// a hundredth of a percent.
inline constexpr double kLargestMeasuredWholeGridError = 0.0544;

// How a sampled run trades time for accuracy (above).
enum class SamplePrecision { kFast, kPrecise };
// Precise sampling: grids of at most this many threadgroups run whole (K sampled only)...
inline constexpr std::int64_t kPreciseWholeGrid = 512;
// ... with K_high = kPreciseKRatio K_low when K >= 4 K_high (else 2 K_low, as fast sampling).
inline constexpr std::int64_t kPreciseKRatio = 4;
// Precise sampling's largest error measured (docs/sampling.md, "Precise sampling": marlin_gemm_fp4
// 64x64x32 at 256x1024x4096 on m1, -5.114%), rounded up to a hundredth of a percent.
inline constexpr double kPreciseLargestMeasuredError = 0.0512;

// The sampled work (threadgroups of the slice times the K steps of both sampled lengths) up to
// which K_low holds eight K steps rather than four: slices of up to 21 threadgroups. Four steps
// leave the start-up of the main loop in the slope (up to 2% of the cycles on the shapes of
// docs/sampling.md), eight do not. Eight steps double a sample's cost, so larger slices, whose
// four-step samples already take most of a sampled run's time (26 threadgroups in the
// selection sweep's 1024-row cells, 103 in the 4096^3 slice), keep four.
inline constexpr std::int64_t kSteadySampleWork = 512;

struct SamplingPlan {
  std::vector<std::int64_t> k_values;  // reduction lengths simulated: {K} or {K_low, K_high}
  sim::ThreadgroupSlice slice;         // x 0: every threadgroup
  int cores = 0;                       // cores the slice runs on
};

// What a sampled run did, for the report.
struct SamplingReport {
  SamplePrecision precision = SamplePrecision::kFast;
  std::vector<std::int64_t> k_values;
  // The L2 capacity each K sample ran with, in k_values' order (sample_l2.h).
  std::vector<std::int64_t> l2_bytes;
  // A whole grid's K samples: what their reuse distances say of the full run's L2 (sample_l2.h);
  // none for slices and unsampled K.
  std::optional<L2Overflow> l2_overflow;
  std::int64_t device_l2_bytes = 0;  // the device's L2 capacity
  int cores = 0;                     // cores simulated
  int device_cores = 0;              // cores of the device
  double share = 1;                  // the slice's share of the main dispatch's threadgroups
  // Its share of the DRAM bandwidth: 1, or its distinct loaded bytes / the problem's operand
  // bytes when the launch saturates DRAM.
  double dram_share = 1;
  // Threadgroup-K-steps simulated over all sampled runs, against those of a full run.
  double work_fraction = 1;
  std::int64_t simulated_instructions = 0;  // simdgroup instructions the sampled runs replayed
  // Threadgroups of all sampled launches, and those whose traces the engine built by
  // translation (alike_threadgroups()) instead of running them.
  std::uint64_t translated_threadgroups = 0;
  std::uint64_t simulated_threadgroups = 0;
  double error_bound = kSampledErrorBound;
  double largest_measured_error = kLargestMeasuredSampledError;
  // Fast sampling sliced a grid of several threadgroups per core that precise sampling would
  // simulate whole: the grids where fast sampling's largest errors were measured.
  bool precise_runs_whole = false;
  // The slice saturated DRAM and the whole grid ran in its place (dram_bound_runs_whole).
  bool dram_bound_whole = false;
};

// The K unit every sampled length is a multiple of: the tile's K step times the K-parallel
// factor, rounded up to a multiple of the scale group.
std::int64_t k_sampling_unit(const kernels::GemmKernel& kernel, const kernels::GemmProblem& problem,
                             int group_size);

// The main dispatch's grid (x = output column tiles, y = row tiles; striped: 1D).
sim::Dim3 main_grid(const kernels::GemmKernel& kernel, const kernels::GemmProblem& problem);

// The threadgroups of a main dispatch whose traces are alike (sim::AlikeThreadgroups): the
// tiled grid's but its last column when N is ragged and its last row when M is (a single row or
// column is alike throughout); none for the striped kernel, whose threadgroups take different
// work units. A sampled run builds their traces by translation: the same traces, and so the
// same cycles, for a fraction of the engine's time.
sim::AlikeThreadgroups alike_threadgroups(const kernels::GemmKernel& kernel,
                                          const kernels::GemmProblem& problem);

// Plans the sampled run of a main dispatch of `grid`. The threadgroups are sliced to
// slice_cores cores' worth when the launch has more threadgroups than the device has cores,
// its busiest core holds one of them or the grid has more than 128, and at most 10% of them
// sit on a ragged edge (last row or column of a multi-row or multi-column grid). K is sampled when
// K >= 4 K_high (K_high = 2 K_low): K_low holds eight K steps when K allows it and the slice's
// sampled work (threadgroups x K steps over both lengths) stays within kSteadySampleWork, else
// four. Precise sampling runs grids of up to kPreciseWholeGrid threadgroups whole, with K_high =
// kPreciseKRatio K_low when K >= 4 K_high.
SamplingPlan plan_sampling(const model::DeviceSpec& device, const kernels::GemmKernel& kernel,
                           const kernels::GemmProblem& problem, int group_size, sim::Dim3 grid,
                           int slice_cores, SamplePrecision precision = SamplePrecision::kFast);

// The rows of A and the columns of the weights that the threadgroups of `slice` read: for a
// block of a tiled grid, the block's tile rows and columns; otherwise the whole problem. A
// sampled run draws only these operands and leaves the rest zero: the engine's traces, and so
// the cycles, do not depend on the operands' values.
struct OperandRegion {
  std::int64_t rows = 0;
  std::int64_t columns = 0;
};
OperandRegion slice_operand_region(const kernels::GemmKernel& kernel,
                                   const kernels::GemmProblem& problem,
                                   const sim::ThreadgroupSlice& slice);

// The device the slice runs on: `cores` cores, the shared L2 port's bandwidth times `share`
// (the slice's share of the threadgroups) and the DRAM bandwidth times `dram_share`. The L2 and
// SLC keep their capacity.
model::DeviceSpec slice_device(const model::DeviceSpec& device, int cores, double share,
                               double dram_share);

// The largest error measured outside the tested shapes for a sampled run of this method (the
// figure its report states): precise sampling, else fast sampling of a slice or of a whole grid.
double largest_measured_error(bool precise, bool sliced);

// Whether a sliced grid of `threadgroups` whose slice saturates DRAM runs whole instead of
// replaying the slice with its share of the bandwidth: grids of at most 128 threadgroups
// (kMaxWholeGrid), which are sliced only with one threadgroup per core or fewer (decode
// shapes). On m4max at 4 GB/s, marlin_gemm_fused_fp4 32x128x32 at 1x4096x2048 was +7.80% off
// sliced and +0.05% whole, in 0.17-0.24 s against 0.03-0.06 s (docs/sampling.md,
// "Threadgroup slicing").
bool dram_bound_runs_whole(std::uint64_t threadgroups);

// Whether a launch that reads `problem_bytes` (its compulsory DRAM reads) in `cycles` would
// need more than the device's DRAM bandwidth: the slice's prediction at full bandwidth is then
// too fast, and the slice must run with its share of the bandwidth instead, or the whole grid
// in its place (dram_bound_runs_whole).
bool saturates_dram(std::int64_t problem_bytes, timing::Cycles cycles,
                    const model::DeviceSpec& device);

// Bytes of the distinct device-memory lines of `line_bytes` that a launch's traces load: the
// slice's compulsory DRAM reads. (Stores are left out: C stays in L2, write-allocated, until
// something evicts it.)
std::int64_t distinct_loaded_bytes(const sim::LaunchTrace& trace, int line_bytes);

// The traces of a sliced launch as a 1D grid of the threadgroups that ran, in dispatch order,
// so the timing model dispatches them to the slice's cores as the device would.
sim::LaunchTrace compact_slice(sim::LaunchTrace trace);

// Threadgroups of a launch of `grid` that `slice` runs.
std::int64_t threadgroups_in_slice(const sim::ThreadgroupSlice& slice, sim::Dim3 grid);

// The value at `k` of the line through (k_low, low) and (k_high, high), rounded.
std::int64_t extrapolate(std::int64_t k_low, std::int64_t low, std::int64_t k_high,
                         std::int64_t high, std::int64_t k);

// Combines the timing results at the planned K values (one per k_values entry, same launches)
// into the prediction for `k`: cycles, DRAM bytes and instructions extrapolated along K and
// divided by `share` where they are totals over threadgroups; occupancy, utilizations, hit
// rates and the stall breakdown are those of the longest sampled run.
timing::TimingResult combine_sampled(const std::vector<timing::TimingResult>& runs,
                                     const std::vector<std::int64_t>& k_values, std::int64_t k,
                                     double share, const model::GpuSpec& gpu, double useful_flops);

}  // namespace marlin::cli
