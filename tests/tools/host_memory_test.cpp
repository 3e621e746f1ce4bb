// The host-memory helpers behind the default trace limit.
#include "tools/cli/host_memory.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace marlin::cli {
namespace {

TEST(HostMemory, ReadsACgroupLimitInBytes) {
  EXPECT_EQ(parse_cgroup_memory_limit("1073741824\n"), 1073741824u);
  EXPECT_EQ(parse_cgroup_memory_limit("536870912"), 536870912u);
  // cgroup v1's "no limit" is the largest page-aligned signed 64-bit value.
  EXPECT_EQ(parse_cgroup_memory_limit("9223372036854771712\n"), 9223372036854771712u);
}

TEST(HostMemory, NoLimitOrGarbageIsZero) {
  EXPECT_EQ(parse_cgroup_memory_limit("max\n"), 0u);
  EXPECT_EQ(parse_cgroup_memory_limit(""), 0u);
  EXPECT_EQ(parse_cgroup_memory_limit("\n"), 0u);
  EXPECT_EQ(parse_cgroup_memory_limit("12abc"), 0u);
  EXPECT_EQ(parse_cgroup_memory_limit("-5"), 0u);
}

TEST(HostMemory, TheHostsMemoryIsAtMostItsPhysicalMemory) {
  const std::uint64_t physical = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                                 static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
  EXPECT_GT(host_memory_bytes(), 0u);
  EXPECT_LE(host_memory_bytes(), physical);
  EXPECT_EQ(default_trace_limit_bytes(), host_memory_bytes() / 4 * 3);
}

}  // namespace
}  // namespace marlin::cli
