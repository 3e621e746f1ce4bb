// Sampled simulation of one GEMM run: simulate a representative part of the work in full
// detail and extrapolate the rest (docs/sampling.md).
//
// Two reductions, each applied only when it pays:
// - K sampling. A GEMM's main loop repeats the same step over K, so the predicted cycles are
//   affine in K once the pipeline is full. The run is simulated at two reduced lengths
//   K_low < K_high (multiples of the tile's K step, the scale group and the K-parallel factor)
//   and the cycles are extrapolated along the line through them.
// - Threadgroup slicing. Threadgroups of a launch run near-identical traces, and the launch
//   ends when its most loaded core does: ceil(T / cores) threadgroups. The slice runs that
//   many threadgroups per simulated core, taken from a block at the grid's origin shaped like
//   the grid, so they share A rows and weight columns as the full launch's do (the striped
//   kernel, whose last threadgroups may be idle: every cores-th one). It runs on a device of
//   that many cores whose DRAM bandwidth is scaled to the slice's share of the problem's
//   distinct bytes and whose L2 port to its share of the threadgroups, after a warm-up launch
//   of the lines two or more of its threadgroups share, as the rest of the device would have
//   fetched them. Slicing is skipped when many threadgroups sit on a ragged edge, and for a
//   striped launch with no more threadgroups than cores (plan_sampling).
// Contract: the cycles of a sampled run are within kSampledErrorBound of the full run's on the
// shapes tests/tools/sampling_accuracy_test.cpp checks; the bound is a measured property of the
// method, not a proof for every shape.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/launch/gemm_runner.h"
#include "model/device/device_spec.h"
#include "model/timing/timing_run.h"
#include "sim/runtime/launch.h"

namespace marlin::cli {

inline constexpr double kSampledErrorBound = 0.04;

struct SamplingPlan {
  std::vector<std::int64_t> k_values;  // reduction lengths simulated: {K} or {K_low, K_high}
  sim::ThreadgroupSlice slice;         // x 0: every threadgroup
  int cores = 0;                       // cores the slice runs on
};

// What a sampled run did, for the report.
struct SamplingReport {
  std::vector<std::int64_t> k_values;
  int cores = 0;          // cores simulated
  int device_cores = 0;   // cores of the device
  double share = 1;       // the slice's share of the main dispatch's threadgroups
  double dram_share = 1;  // its share of the DRAM bandwidth: its distinct bytes / the problem's
  // Threadgroup-K-steps simulated over all sampled runs, against those of a full run.
  double work_fraction = 1;
  std::int64_t simulated_instructions = 0;  // simdgroup instructions the sampled runs replayed
  double error_bound = kSampledErrorBound;
};

// The K unit every sampled length is a multiple of: the tile's K step times the K-parallel
// factor, rounded up to a multiple of the scale group.
std::int64_t k_sampling_unit(const kernels::GemmKernel& kernel, const kernels::GemmProblem& problem,
                             int group_size);

// The main dispatch's grid (x = output column tiles, y = row tiles; striped: 1D).
sim::Dim3 main_grid(const kernels::GemmKernel& kernel, const kernels::GemmProblem& problem);

// Plans the sampled run of a main dispatch of `grid`: K is sampled when K >= 4 K_high
// (K_high = 2 K_low, K_low at least four K steps); the threadgroups are sliced to slice_cores
// cores' worth when the launch has more threadgroups than the device has cores and at most 10%
// of them sit on a ragged edge (last row or column of a multi-row or multi-column grid).
SamplingPlan plan_sampling(const model::DeviceSpec& device, const kernels::GemmKernel& kernel,
                           const kernels::GemmProblem& problem, int group_size, sim::Dim3 grid,
                           int slice_cores);

// The device the slice runs on: `cores` cores, the shared L2 port's bandwidth times `share`
// (the slice's share of the threadgroups) and the DRAM bandwidth times `dram_share`. The L2 and
// SLC keep their capacity: the warm-up puts the shared lines in them.
model::DeviceSpec slice_device(const model::DeviceSpec& device, int cores, double share,
                               double dram_share);

// A launch of one simdgroup that loads `lines` (buffer << 40 | line number) once each, run
// before a slice so that the L2 and SLC hold the lines its threadgroups share with the rest of
// the device, as if other cores had fetched them.
sim::LaunchTrace warm_up_trace(const std::vector<std::uint64_t>& lines, int line_bytes);

// The device-memory lines (buffer << 40 | line number) that two or more threadgroups of a
// launch's traces touch, ascending.
std::vector<std::uint64_t> shared_device_lines(const sim::LaunchTrace& trace, int line_bytes);

// `result` without its first launch (the warm-up): totals, breakdown and rates recomputed.
timing::TimingResult without_first_launch(timing::TimingResult result, const model::GpuSpec& gpu,
                                          double useful_flops);

// Bytes of the distinct device-memory lines of `line_bytes` that a launch's traces touch: the
// slice's compulsory DRAM traffic.
std::int64_t distinct_device_bytes(const sim::LaunchTrace& trace, int line_bytes);

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
