#include "tools/cli/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_set>
#include <utility>

#include "model/common/invariant.h"
#include "model/timing/cycles.h"

namespace marlin::cli {
namespace {

// K steps of K_low: the fewest for a double-buffered pipeline to fill, and the number past the
// main loop's start-up (sampling.h, kSteadySampleWork).
constexpr std::int64_t kMinimumSteps = 4;
constexpr std::int64_t kSteadySteps = 8;

// Slicing assumes the threadgroups are alike: not when more than this share of them sits on a
// ragged edge of the grid.
constexpr double kMaxEdgeShare = 0.1;

// Grids of several threadgroups per core are simulated whole when they have at most this
// many: a slice's few threadgroups share lines among themselves rather than with the rest of
// the grid as the full launch's do. On m4max (2 to 4 per core) the slices came out 2.6% to
// 6.8% off where the whole grid, K sampled, was within 1%; on 8- and 16-core devices (8 to 16
// per core, twelve shapes) up to 11.7% off (mean 3.5%), the whole grid up to 5.4% (mean 1.5%;
// docs/sampling.md). The whole grid's four-step K samples are about the work of the 4096^3
// slice (103 threadgroups); larger grids keep the slice, for the selection sweep's time.
constexpr std::int64_t kMaxWholeGrid = 128;

// Ops with accesses to device or constant memory (a memory op's kind is its Space).
bool touches_device_memory(const sim::TraceOp& op) {
  return sim::has_accesses(op.op) && op.kind != static_cast<std::uint8_t>(sim::Space::kThreadgroup);
}

// The share of a tiled grid's threadgroups on a ragged edge that makes them differ from the
// rest: the last row when M is not a multiple of the tile's M and there are several rows, the
// last column likewise for N. (A single row of tiles is ragged alike in every threadgroup.)
double differing_edge_share(const kernels::GemmKernel& kernel, const kernels::GemmProblem& problem,
                            sim::Dim3 grid) {
  if (kernel.family == kernels::GemmFamily::kMarlinFp4Striped) return 0;
  const bool ragged_rows = grid.y > 1 && problem.m % std::max(kernel.tile.tm, 1) != 0;
  const bool ragged_columns = grid.x > 1 && problem.n % std::max(kernel.tile.tn, 1) != 0;
  const std::int64_t edge = (ragged_rows ? grid.x : 0) + (ragged_columns ? grid.y : 0) -
                            (ragged_rows && ragged_columns ? 1 : 0);
  return static_cast<double>(edge) / static_cast<double>(grid.volume());
}

// The kernel's K step: the tile's K times the K-parallel factor.
std::int64_t k_step(const kernels::GemmKernel& kernel, const kernels::GemmProblem& problem) {
  return std::max<std::int64_t>(1, kernel.tile.tk) * std::max(1, problem.k_parallel);
}

}  // namespace

std::int64_t k_sampling_unit(const kernels::GemmKernel& kernel, const kernels::GemmProblem& problem,
                             int group_size) {
  const std::int64_t step = k_step(kernel, problem);
  if (group_size == kernels::kPerColumnGroup || group_size <= 0) return step;
  return std::lcm(step, static_cast<std::int64_t>(group_size));
}

sim::Dim3 main_grid(const kernels::GemmKernel& kernel, const kernels::GemmProblem& problem) {
  if (kernel.family == kernels::GemmFamily::kMarlinFp4Striped) {
    // The runner launches no more threadgroups than there are work units.
    const std::int64_t units = kernels::striped_work_units(kernel, problem);
    return {static_cast<std::uint32_t>(std::min<std::int64_t>(
                problem.num_threadgroups == 0 ? units : problem.num_threadgroups, units)),
            1, 1};
  }
  const auto tiles = [](std::int64_t extent, int tile) {
    return static_cast<std::uint32_t>((extent + std::max(tile, 1) - 1) / std::max(tile, 1));
  };
  return {tiles(problem.n, kernel.tile.tn), tiles(problem.m, kernel.tile.tm), 1};
}

namespace {

// A block of `count` threadgroups of a tiled grid with the grid's aspect ratio, so its
// threadgroups share A rows and weight columns in the grid's proportions.
sim::ThreadgroupSlice grid_shaped_block(sim::Dim3 grid, std::int64_t count) {
  const double aspect = static_cast<double>(grid.x) / static_cast<double>(grid.y);
  const auto bx = static_cast<std::uint32_t>(
      std::clamp<double>(std::round(std::sqrt(static_cast<double>(count) * aspect)), 1.0, grid.x));
  const auto by = static_cast<std::uint32_t>(std::min<std::int64_t>(grid.y, (count + bx - 1) / bx));
  return {bx, by, static_cast<std::uint32_t>(count)};
}

// K_low of `steps` K steps (rounded up to the unit) and K_high = `ratio` K_low, or nothing when
// K is not a multiple of the unit or shorter than 4 K_high.
std::vector<std::int64_t> k_samples(std::int64_t k, std::int64_t unit, std::int64_t step,
                                    std::int64_t steps, std::int64_t ratio) {
  const std::int64_t k_low = unit * ((steps * step + unit - 1) / unit);
  if (k % unit != 0 || k < 4 * ratio * k_low) return {};
  return {k_low, ratio * k_low};
}

}  // namespace

SamplingPlan plan_sampling(const model::DeviceSpec& device, const kernels::GemmKernel& kernel,
                           const kernels::GemmProblem& problem, int group_size, sim::Dim3 grid,
                           int slice_cores, SamplePrecision precision) {
  SamplingPlan plan;
  // The most loaded core's share of the grid, times the simulated cores.
  const auto total = static_cast<std::int64_t>(grid.volume());
  const std::int64_t cores = device.gpu.cores;
  plan.cores = static_cast<int>(std::min<std::int64_t>(std::max(slice_cores, 1), cores));
  const std::int64_t per_core = (total + cores - 1) / cores;
  const std::int64_t count = per_core * plan.cores;
  const bool striped = kernel.family == kernels::GemmFamily::kMarlinFp4Striped;
  const bool precise = precision == SamplePrecision::kPrecise;
  // With one threadgroup per core, the slice is `plan.cores` threadgroups of a tiled grid,
  // alike; the striped kernel's first threadgroups take more of the work than the others.
  if (grid.z != 1 || count >= total || (striped && total <= cores) ||
      (precise && total <= kPreciseWholeGrid) || (per_core > 1 && total <= kMaxWholeGrid) ||
      differing_edge_share(kernel, problem, grid) > kMaxEdgeShare) {
    plan.cores = device.gpu.cores;
  } else if (striped) {
    // Stripes give the first threadgroups the work and leave the last ones idle: take what the
    // simulated cores receive, every cores-th threadgroup.
    plan.slice = {.x = static_cast<std::uint32_t>(plan.cores),
                  .period = static_cast<std::uint32_t>(cores)};
  } else {
    plan.slice = grid_shaped_block(grid, count);
  }

  const std::int64_t unit = k_sampling_unit(kernel, problem, group_size);
  const std::int64_t step = k_step(kernel, problem);
  const std::int64_t simulated =
      plan.slice.x == 0 ? total : threadgroups_in_slice(plan.slice, grid);
  // K_high = ratio K_low: eight steps in K_low while the work allows, else four.
  const auto samples_at = [&](std::int64_t ratio) {
    std::vector<std::int64_t> ks = k_samples(problem.k, unit, step, kSteadySteps, ratio);
    if (ks.empty() || simulated * (1 + ratio) * ks.front() / step > kSteadySampleWork) {
      ks = k_samples(problem.k, unit, step, kMinimumSteps, ratio);
    }
    return ks;
  };
  // Precise sampling spaces a whole grid's K samples further apart when K allows.
  if (precise && plan.slice.x == 0) plan.k_values = samples_at(kPreciseKRatio);
  if (plan.k_values.empty()) plan.k_values = samples_at(2);
  if (plan.k_values.empty()) plan.k_values = {problem.k};
  return plan;
}

sim::AlikeThreadgroups alike_threadgroups(const kernels::GemmKernel& kernel,
                                          const kernels::GemmProblem& problem) {
  if (kernel.family == kernels::GemmFamily::kMarlinFp4Striped) return {};
  const sim::Dim3 grid = main_grid(kernel, problem);
  const auto alike = [](std::uint32_t tiles, std::int64_t extent, int tile) {
    return tiles > 1 && extent % std::max(tile, 1) != 0 ? tiles - 1 : tiles;
  };
  return {alike(grid.x, problem.n, kernel.tile.tn), alike(grid.y, problem.m, kernel.tile.tm)};
}

OperandRegion slice_operand_region(const kernels::GemmKernel& kernel,
                                   const kernels::GemmProblem& problem,
                                   const sim::ThreadgroupSlice& slice) {
  if (slice.x == 0 || slice.period != 0 ||
      kernel.family == kernels::GemmFamily::kMarlinFp4Striped) {
    return {problem.m, problem.n};
  }
  // Block threadgroup (x, y) computes output rows [y tm, (y + 1) tm) and columns
  // [x tn, (x + 1) tn) from those rows of A and those columns of the weights. The block's
  // `count` threadgroups fill its rows in order: the first min(x, count) columns, and
  // ceil(count / x) rows.
  const std::int64_t columns = std::min(slice.x, slice.count);
  const std::int64_t rows = std::min<std::int64_t>(slice.y, (slice.count + slice.x - 1) / slice.x);
  return {std::min(problem.m, rows * kernel.tile.tm),
          std::min(problem.n, columns * kernel.tile.tn)};
}

model::DeviceSpec slice_device(const model::DeviceSpec& device, int cores, double share,
                               double dram_share) {
  MARLIN_CHECK(cores >= 1 && share > 0 && share <= 1 && dram_share > 0 && dram_share <= 1,
               "a slice keeps some of the device");
  model::DeviceSpec out = device;
  out.gpu.cores = cores;
  out.memory.l2_bytes_per_cycle = device.memory.l2_bytes_per_cycle * share;
  out.memory.dram_bandwidth_bytes_per_s = device.memory.dram_bandwidth_bytes_per_s * dram_share;
  return out;
}

sim::LaunchTrace compact_slice(sim::LaunchTrace trace) {
  // Traces come ordered by threadgroup; renumber the distinct threadgroups 0, 1, ...
  std::uint32_t next = 0;
  std::array<std::uint32_t, 3> previous{~0u, ~0u, ~0u};
  for (sim::SimdgroupTrace& sg : trace.simdgroups) {
    if (sg.threadgroup != previous) {
      previous = sg.threadgroup;
      ++next;
    }
    sg.threadgroup = {next - 1, 0, 0};
  }
  trace.threadgroups_per_grid = {std::max<std::uint32_t>(next, 1), 1, 1};
  return trace;
}

double largest_measured_error(bool precise, bool sliced) {
  if (precise) return kPreciseLargestMeasuredError;
  return sliced ? kLargestMeasuredSlicedError : kLargestMeasuredWholeGridError;
}

bool dram_bound_runs_whole(std::uint64_t threadgroups) {
  return threadgroups <= static_cast<std::uint64_t>(kMaxWholeGrid);
}

bool saturates_dram(std::int64_t problem_bytes, timing::Cycles cycles,
                    const model::DeviceSpec& device) {
  const double seconds = timing::to_seconds(cycles, device.gpu);
  return static_cast<double>(problem_bytes) >= device.memory.dram_bandwidth_bytes_per_s * seconds;
}

std::int64_t distinct_loaded_bytes(const sim::LaunchTrace& trace, int line_bytes) {
  const auto line = static_cast<std::uint64_t>(std::max(1, line_bytes));
  std::unordered_set<std::uint64_t> lines;  // buffer << 40 | line number
  for (const sim::SimdgroupTrace& sg : trace.simdgroups) {
    for (const sim::TraceOp& op : sg.ops) {
      if (!sim::is_load(op.op) || !touches_device_memory(op)) continue;
      for (std::uint32_t i = 0; i < op.count; ++i) {
        const sim::MemAccess a = sim::access_at(sg.accesses.data() + op.first_access, i);
        if (a.bytes == 0) continue;
        for (std::uint64_t l = a.offset / line; l <= (a.offset + a.bytes - 1) / line; ++l) {
          lines.insert((std::uint64_t{a.buffer} << 40) | l);
        }
      }
    }
  }
  return static_cast<std::int64_t>(lines.size()) * std::max(1, line_bytes);
}

std::int64_t threadgroups_in_slice(const sim::ThreadgroupSlice& slice, sim::Dim3 grid) {
  std::int64_t n = 0;
  std::uint64_t linear = 0;
  for (std::uint32_t z = 0; z < grid.z; ++z) {
    for (std::uint32_t y = 0; y < grid.y; ++y) {
      for (std::uint32_t x = 0; x < grid.x; ++x) n += slice.runs(linear++, x, y, z) ? 1 : 0;
    }
  }
  return n;
}

std::int64_t extrapolate(std::int64_t k_low, std::int64_t low, std::int64_t k_high,
                         std::int64_t high, std::int64_t k) {
  if (k_high == k_low) return high;
  const double slope = static_cast<double>(high - low) / static_cast<double>(k_high - k_low);
  return low + static_cast<std::int64_t>(std::llround(slope * static_cast<double>(k - k_low)));
}

timing::TimingResult combine_sampled(const std::vector<timing::TimingResult>& runs,
                                     const std::vector<std::int64_t>& k_values, std::int64_t k,
                                     double share, const model::GpuSpec& gpu, double useful_flops) {
  MARLIN_CHECK(!runs.empty() && runs.size() == k_values.size(), "one timing run per K value");
  const timing::TimingResult& high = runs.back();
  const timing::TimingResult& low = runs.front();
  const std::int64_t k_low = k_values.front();
  const std::int64_t k_high = k_values.back();
  const auto along_k = [&](std::int64_t lo, std::int64_t hi) {
    return extrapolate(k_low, lo, k_high, hi, k);
  };
  const auto per_device = [&](std::int64_t slice_total) {
    return static_cast<std::int64_t>(std::llround(static_cast<double>(slice_total) / share));
  };

  timing::TimingResult out = high;
  timing::Cycles now(0);
  std::int64_t dram_bytes = 0;
  out.instructions = 0;
  for (std::size_t i = 0; i < out.launches.size(); ++i) {
    timing::LaunchResult& launch = out.launches[i];
    const timing::LaunchResult& lo = low.launches[i];
    launch.begin = now;
    launch.cycles = timing::Cycles(along_k(lo.cycles.count(), high.launches[i].cycles.count()));
    launch.tail_cycles =
        timing::Cycles(along_k(lo.tail_cycles.count(), high.launches[i].tail_cycles.count()));
    launch.dram_bytes = per_device(along_k(lo.dram_bytes, high.launches[i].dram_bytes));
    launch.instructions = per_device(along_k(lo.instructions, high.launches[i].instructions));
    now += launch.cycles;
    dram_bytes += launch.dram_bytes;
    out.instructions += launch.instructions;
  }
  out.total_cycles = now;
  out.seconds = timing::to_seconds(now, gpu);
  out.achieved_flops_per_s = out.seconds > 0 ? useful_flops / out.seconds : 0.0;
  out.dram_bytes_per_s = out.seconds > 0 ? static_cast<double>(dram_bytes) / out.seconds : 0.0;
  return out;
}

}  // namespace marlin::cli
