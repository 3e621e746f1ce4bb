#include "tools/cli/host_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <string>

namespace marlin::cli {
namespace {

// The memory limits of the process's control group (cgroup v2, then v1), when mounted.
constexpr const char* kCgroupLimitFiles[] = {"/sys/fs/cgroup/memory.max",
                                             "/sys/fs/cgroup/memory/memory.limit_in_bytes"};

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_bytes <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_bytes);
}

}  // namespace

std::int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
}

std::uint64_t parse_cgroup_memory_limit(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return 0;
  return value;
}

std::uint64_t host_memory_bytes() {
  // Read once: every run of a sweep asks for the default trace limit.
  static const std::uint64_t bytes = [] {
    std::uint64_t smallest = physical_memory_bytes();
    for (const char* path : kCgroupLimitFiles) {
      std::ifstream file(path);
      if (!file) continue;
      const std::string text((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
      const std::uint64_t limit = parse_cgroup_memory_limit(text);
      if (limit > 0 && (smallest == 0 || limit < smallest)) smallest = limit;
    }
    return smallest;
  }();
  return bytes;
}

std::uint64_t default_trace_limit_bytes() { return host_memory_bytes() / 4 * 3; }

}  // namespace marlin::cli
