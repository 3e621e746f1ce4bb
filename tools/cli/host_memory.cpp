#include "tools/cli/host_memory.h"

#include <sys/resource.h>
#include <unistd.h>

namespace marlin::cli {

std::int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
}

std::uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_bytes <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_bytes);
}

std::uint64_t default_trace_limit_bytes() { return host_memory_bytes() / 4 * 3; }

}  // namespace marlin::cli
