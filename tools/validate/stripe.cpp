#include "tools/validate/stripe.h"

#include <algorithm>
#include <map>
#include <set>

#include "fmt/core.h"
#include "model/common/input_error.h"
#include "model/common/join.h"

namespace marlin::validate {

StripeAssignment assign_stripes(const StripeProblem& problem) {
  if (problem.m_tiles < 1 || problem.n_tiles < 1 || problem.threadgroups < 1 ||
      problem.k_parallel < 1) {
    throw InputError(fmt::format(
        "stripe problem needs m_tiles, n_tiles, threadgroups and k_parallel >= 1 (got {}, {}, "
        "{}, {})",
        problem.m_tiles, problem.n_tiles, problem.threadgroups, problem.k_parallel));
  }
  StripeAssignment result;
  result.total_work = problem.m_tiles * problem.n_tiles * problem.k_parallel;
  result.work_per_tg = (result.total_work + problem.threadgroups - 1) / problem.threadgroups;
  for (std::int64_t tg = 0; tg < problem.threadgroups; ++tg) {
    ThreadgroupWork work;
    work.work_start = std::min(tg * result.work_per_tg, result.total_work);
    work.work_end = std::min(work.work_start + result.work_per_tg, result.total_work);
    for (std::int64_t u = work.work_start; u < work.work_end; ++u) {
      WorkUnit unit;
      unit.index = u;
      unit.tile_linear = u / problem.k_parallel;
      unit.k_slice = u % problem.k_parallel;
      unit.row = unit.tile_linear % problem.m_tiles;
      unit.col = unit.tile_linear / problem.m_tiles;
      work.units.push_back(unit);
    }
    result.threadgroups.push_back(std::move(work));
  }
  return result;
}

std::string assignment_grid(const StripeProblem& problem, const StripeAssignment& assignment) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::set<std::int64_t>> owners;
  for (std::size_t tg = 0; tg < assignment.threadgroups.size(); ++tg) {
    for (const WorkUnit& unit : assignment.threadgroups[tg].units) {
      owners[{unit.row, unit.col}].insert(static_cast<std::int64_t>(tg));
    }
  }
  std::string grid;
  for (std::int64_t row = 0; row < problem.m_tiles; ++row) {
    if (row > 0) grid += " / ";
    for (std::int64_t col = 0; col < problem.n_tiles; ++col) {
      if (col > 0) grid += " ";
      const auto it = owners.find({row, col});
      if (it == owners.end()) {
        grid += "-";
        continue;
      }
      std::string cell;
      for (const std::int64_t tg : it->second) {
        append_item(cell, "+", std::to_string(tg));
      }
      grid += cell;
    }
  }
  return grid;
}

std::vector<std::int64_t> units_per_threadgroup(const StripeAssignment& assignment) {
  std::vector<std::int64_t> counts;
  for (const ThreadgroupWork& work : assignment.threadgroups) {
    counts.push_back(static_cast<std::int64_t>(work.units.size()));
  }
  return counts;
}

std::vector<std::int64_t> round_robin_loads(std::int64_t tiles, std::int64_t units) {
  if (tiles < 0 || units < 1) {
    throw InputError(fmt::format(
        "round-robin dispatch needs tiles >= 0 and units >= 1 (got {}, {})", tiles, units));
  }
  std::vector<std::int64_t> loads(static_cast<std::size_t>(units), 0);
  for (std::int64_t tile = 0; tile < tiles; ++tile) ++loads[static_cast<std::size_t>(tile % units)];
  std::sort(loads.begin(), loads.end(), std::greater<>());
  return loads;
}

std::string tile_list(const ThreadgroupWork& work) {
  if (work.units.empty()) return "(none)";
  std::string text;
  for (const WorkUnit& unit : work.units) {
    append_item(text, ", ", std::to_string(unit.tile_linear));
  }
  return text;
}

std::string position_list(const ThreadgroupWork& work) {
  if (work.units.empty()) return "(idle)";
  std::string text;
  for (const WorkUnit& unit : work.units) {
    text += fmt::format("{}({},{})", text.empty() ? "" : ", ", unit.row, unit.col);
  }
  return text;
}

}  // namespace marlin::validate
