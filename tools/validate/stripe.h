// Stripe partitioning of a tiled GEMM output, written from the algorithm of
// stripe-partitioning.md §2.1 (and architecture.md): the m_tiles x n_tiles tile grid times
// k_parallel K-slices is one linear list of work units; threadgroup t takes the contiguous range
// [t * w, min(t * w + w, total)) with w = ceil(total / threadgroups); a work unit u is
// tile_linear = u / k_parallel, k_slice = u % k_parallel, and a tile index is column-major:
// row = tile_linear % m_tiles, col = tile_linear / m_tiles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace marlin::validate {

struct StripeProblem {
  std::int64_t m_tiles = 0;
  std::int64_t n_tiles = 0;
  std::int64_t threadgroups = 0;
  std::int64_t k_parallel = 1;
};

struct WorkUnit {
  std::int64_t index = 0;  // position in the linear work list
  std::int64_t tile_linear = 0;
  std::int64_t k_slice = 0;
  std::int64_t row = 0;  // tile row (M direction)
  std::int64_t col = 0;  // tile column (N direction)
};

struct ThreadgroupWork {
  std::int64_t work_start = 0;
  std::int64_t work_end = 0;  // exclusive; equals work_start when idle
  std::vector<WorkUnit> units;
};

struct StripeAssignment {
  std::int64_t total_work = 0;   // m_tiles * n_tiles * k_parallel
  std::int64_t work_per_tg = 0;  // ceil(total_work / threadgroups)
  std::vector<ThreadgroupWork> threadgroups;
};

// Throws InputError unless every count is at least 1.
StripeAssignment assign_stripes(const StripeProblem& problem);

// The grid picture: for each tile row, the threadgroup of each tile column, separated by
// spaces, rows joined by " / " ("0 1 3 / 0 2 3 / 1 2 4"). With k_parallel > 1 a tile lists
// every threadgroup that works on it, joined by "+".
std::string assignment_grid(const StripeProblem& problem, const StripeAssignment& assignment);

// Work units per threadgroup, e.g. {2, 2, 2, 1, 0}.
std::vector<std::int64_t> units_per_threadgroup(const StripeAssignment& assignment);

// A one-tile-per-threadgroup 2D dispatch of `tiles` tiles on `units` compute units handed out
// round-robin: tiles per unit, largest first (7 on 5 gives {2, 2, 1, 1, 1}).
std::vector<std::int64_t> round_robin_loads(std::int64_t tiles, std::int64_t units);

// "0, 1, 2" and "(0,0), (1,0), (2,0)" renderings of one threadgroup's units; "(none)" when idle.
std::string tile_list(const ThreadgroupWork& work);
std::string position_list(const ThreadgroupWork& work);

}  // namespace marlin::validate
