#include "tools/cli/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "model/common/invariant.h"
#include "model/timing/cycles.h"

namespace marlin::cli {
namespace {

// K steps the sampled lengths start from: enough for a double-buffered pipeline to fill and
// reach its steady state.
constexpr std::int64_t kMinimumSteps = 4;

// Slicing assumes the threadgroups are alike: not when more than this share of them sits on a
// ragged edge of the grid.
constexpr double kMaxEdgeShare = 0.1;

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

}  // namespace

std::int64_t k_sampling_unit(const kernels::GemmKernel& kernel, const kernels::GemmProblem& problem,
                             int group_size) {
  const std::int64_t step =
      std::max<std::int64_t>(1, kernel.tile.tk) * std::max(1, problem.k_parallel);
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

SamplingPlan plan_sampling(const model::DeviceSpec& device, const kernels::GemmKernel& kernel,
                           const kernels::GemmProblem& problem, int group_size, sim::Dim3 grid,
                           int slice_cores) {
  SamplingPlan plan;
  const std::int64_t unit = k_sampling_unit(kernel, problem, group_size);
  const std::int64_t step =
      std::max<std::int64_t>(1, kernel.tile.tk) * std::max(1, problem.k_parallel);
  const std::int64_t k_low = unit * ((kMinimumSteps * step + unit - 1) / unit);
  const std::int64_t k_high = 2 * k_low;
  if (problem.k % unit == 0 && problem.k >= 4 * k_high) {
    plan.k_values = {k_low, k_high};
  } else {
    plan.k_values = {problem.k};
  }

  // The most loaded core's share of the grid, times the simulated cores.
  const auto total = static_cast<std::int64_t>(grid.volume());
  const std::int64_t cores = device.gpu.cores;
  plan.cores = static_cast<int>(std::min<std::int64_t>(std::max(slice_cores, 1), cores));
  const std::int64_t per_core = (total + cores - 1) / cores;
  const std::int64_t count = per_core * plan.cores;
  const bool striped = kernel.family == kernels::GemmFamily::kMarlinFp4Striped;
  // With one threadgroup per core, the slice is `plan.cores` threadgroups of a tiled grid,
  // alike; the striped kernel's first threadgroups take more of the work than the others.
  if (grid.z != 1 || count >= total || (striped && total <= cores) ||
      differing_edge_share(kernel, problem, grid) > kMaxEdgeShare) {
    plan.cores = device.gpu.cores;
    return plan;
  }
  if (striped) {
    // Stripes give the first threadgroups the work and leave the last ones idle: take what the
    // simulated cores receive, every cores-th threadgroup.
    plan.slice = {.x = static_cast<std::uint32_t>(plan.cores),
                  .period = static_cast<std::uint32_t>(cores)};
    return plan;
  }
  // A block of the grid's aspect ratio holding `count` threadgroups.
  const double aspect = static_cast<double>(grid.x) / static_cast<double>(grid.y);
  const auto bx = static_cast<std::uint32_t>(
      std::clamp<double>(std::round(std::sqrt(static_cast<double>(count) * aspect)), 1.0, grid.x));
  const auto by = static_cast<std::uint32_t>(std::min<std::int64_t>(grid.y, (count + bx - 1) / bx));
  plan.slice = {bx, by, static_cast<std::uint32_t>(count)};
  return plan;
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

namespace {

// Calls fn(line) for every line of `line_bytes` each device access of `trace` touches, with
// the index of its threadgroup in the trace.
template <class Fn>
void for_each_device_line(const sim::LaunchTrace& trace, int line_bytes, Fn fn) {
  const auto line = static_cast<std::uint64_t>(std::max(1, line_bytes));
  std::size_t threadgroup = 0;
  for (std::size_t s = 0; s < trace.simdgroups.size(); ++s) {
    const sim::SimdgroupTrace& sg = trace.simdgroups[s];
    if (s > 0 && sg.threadgroup != trace.simdgroups[s - 1].threadgroup) ++threadgroup;
    for (const sim::TraceOp& op : sg.ops) {
      if (!touches_device_memory(op)) continue;
      for (std::uint32_t i = 0; i < op.count; ++i) {
        const sim::MemAccess a = sim::access_at(sg.accesses.data() + op.first_access, i);
        if (a.bytes == 0) continue;
        for (std::uint64_t l = a.offset / line; l <= (a.offset + a.bytes - 1) / line; ++l) {
          fn((std::uint64_t{a.buffer} << 40) | l, threadgroup);
        }
      }
    }
  }
}

}  // namespace

std::vector<std::uint64_t> shared_device_lines(const sim::LaunchTrace& trace, int line_bytes) {
  // line -> (the first threadgroup that touched it, whether another one did too)
  std::unordered_map<std::uint64_t, std::pair<std::size_t, bool>> first_and_shared;
  for_each_device_line(trace, line_bytes, [&](std::uint64_t line, std::size_t threadgroup) {
    auto [it, inserted] = first_and_shared.try_emplace(line, threadgroup, false);
    if (!inserted && it->second.first != threadgroup) it->second.second = true;
  });
  std::vector<std::uint64_t> out;
  for (const auto& [line, entry] : first_and_shared) {
    if (entry.second) out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

sim::LaunchTrace warm_up_trace(const std::vector<std::uint64_t>& lines, int line_bytes) {
  sim::LaunchTrace trace;
  trace.kernel = "sampling warm-up";
  trace.threadgroups_per_grid = {1, 1, 1};
  trace.threads_per_threadgroup = {sim::kSimdWidth, 1, 1};
  sim::SimdgroupTrace sg;
  for (std::size_t first = 0; first < lines.size(); first += sim::kSimdWidth) {
    const std::size_t n = std::min<std::size_t>(sim::kSimdWidth, lines.size() - first);
    sim::TraceOp op;
    op.op = sim::OpClass::kDeviceLoad;
    op.kind = static_cast<std::uint8_t>(sim::Space::kDevice);
    op.count = static_cast<std::uint16_t>(n);
    op.mask = n == sim::kSimdWidth ? ~0u : (1u << n) - 1;
    op.first_access = static_cast<std::uint32_t>(sg.accesses.size());
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t line = lines[first + i];
      sg.accesses.push_back(
          {static_cast<std::uint32_t>((line & ((std::uint64_t{1} << 40) - 1)) * line_bytes),
           static_cast<std::uint16_t>(line >> 40), 4, static_cast<std::uint8_t>(i)});
    }
    sg.ops.push_back(op);
  }
  trace.simdgroups.push_back(std::move(sg));
  return trace;
}

timing::TimingResult without_first_launch(timing::TimingResult result, const model::GpuSpec& gpu,
                                          double useful_flops) {
  MARLIN_CHECK(!result.launches.empty(), "a warm-up launch to drop");
  const timing::LaunchResult first = result.launches.front();
  result.launches.erase(result.launches.begin());
  result.total_cycles -= first.cycles;
  result.instructions -= first.instructions;
  for (std::size_t i = 0; i < timing::kStallClassCount; ++i) {
    result.breakdown.cycles[i] -= first.breakdown.cycles[i];
  }
  std::int64_t dram_bytes = 0;
  for (timing::LaunchResult& launch : result.launches) {
    launch.begin -= first.cycles;
    dram_bytes += launch.dram_bytes;
  }
  result.seconds = timing::to_seconds(result.total_cycles, gpu);
  result.achieved_flops_per_s = result.seconds > 0 ? useful_flops / result.seconds : 0.0;
  result.dram_bytes_per_s =
      result.seconds > 0 ? static_cast<double>(dram_bytes) / result.seconds : 0.0;
  return result;
}

std::int64_t distinct_device_bytes(const sim::LaunchTrace& trace, int line_bytes) {
  std::unordered_set<std::uint64_t> lines;
  for_each_device_line(trace, line_bytes,
                       [&](std::uint64_t line, std::size_t) { lines.insert(line); });
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
