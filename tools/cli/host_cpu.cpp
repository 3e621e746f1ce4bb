#include "tools/cli/host_cpu.h"

#include <ctime>

namespace marlin::cli {

double process_cpu_seconds() {
  timespec now{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) != 0) return 0;
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

}  // namespace marlin::cli
