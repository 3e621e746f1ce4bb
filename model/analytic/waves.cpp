#include "model/analytic/waves.h"

#include "fmt/core.h"
#include "model/common/input_error.h"

namespace marlin::analytic {
namespace {

void require_positive(std::int64_t value, const char* what) {
  if (value < 1) throw InputError(fmt::format("{} must be at least 1 (got {})", what, value));
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

WaveResult compute_waves(std::int64_t total_threadgroups, std::int64_t resident_per_core,
                         std::int64_t cores) {
  require_positive(total_threadgroups, "total threadgroups");
  require_positive(resident_per_core, "resident threadgroups per core");
  require_positive(cores, "GPU cores");
  WaveResult result;
  result.total_threadgroups = total_threadgroups;
  result.resident_per_core = resident_per_core;
  result.cores = cores;
  result.slots = resident_per_core * cores;
  result.waves = ceil_div(total_threadgroups, result.slots);
  result.full_waves = total_threadgroups / result.slots;
  result.tail_threadgroups = total_threadgroups - result.full_waves * result.slots;
  result.tail_fraction =
      static_cast<double>(result.tail_threadgroups) / static_cast<double>(result.slots);
  result.efficiency = static_cast<double>(total_threadgroups) /
                      (static_cast<double>(result.waves) * static_cast<double>(result.slots));
  return result;
}

GemmGrid gemm_grid(std::int64_t m, std::int64_t n, std::int64_t tm, std::int64_t tn) {
  require_positive(m, "M");
  require_positive(n, "N");
  require_positive(tm, "tile M");
  require_positive(tn, "tile N");
  GemmGrid grid;
  grid.tiles_m = ceil_div(m, tm);
  grid.tiles_n = ceil_div(n, tn);
  grid.threadgroups = grid.tiles_m * grid.tiles_n;
  return grid;
}

}  // namespace marlin::analytic
