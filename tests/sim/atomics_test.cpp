// Device atomics under contention from many threadgroups, at one and two host threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

void run_atomics(unsigned host_threads) {
  const std::uint32_t groups = 40;
  const std::uint32_t threads = 64;
  const std::uint32_t total = groups * threads;
  std::vector<std::uint32_t> counters = {0, 0, 0xFFFFFFFFu, 0, 0, 0};
  std::vector<std::int32_t> signed_counters = {0};
  std::vector<std::uint32_t> histogram(8, 0);
  float fsum = 0.0f;
  std::vector<std::uint32_t> seen(total, 0);
  LaunchSpec s = spec("test_atomics", {groups, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(counters);
  s.buffers[1] = buffer(signed_counters);
  s.buffers[2] = buffer(histogram);
  s.buffers[3] = buffer(fsum);
  s.buffers[4] = buffer(seen);
  s.options.host_threads = host_threads;
  EXPECT_TRUE(launch(s).ok());
  EXPECT_EQ(counters[0], total);
  EXPECT_EQ(counters[1], total - 1);  // max of gid
  EXPECT_EQ(counters[2], 5u);         // min of gid + 5
  EXPECT_EQ(counters[3], total);      // tickets handed out by the CAS loop
  EXPECT_LT(counters[4], total);      // some thread's gid
  EXPECT_EQ(counters[5], 42u);
  EXPECT_EQ(signed_counters[0], -2 * static_cast<std::int32_t>(total));
  for (std::uint32_t h : histogram) EXPECT_EQ(h, total / 8);
  EXPECT_EQ(fsum, 0.5f * static_cast<float>(total));  // exact: multiples of 0.5 below 2^23
  // Every thread got a distinct ticket: `seen` is a permutation of 1..total.
  std::vector<std::uint32_t> sorted = seen;
  std::sort(sorted.begin(), sorted.end());
  for (std::uint32_t i = 0; i < total; ++i) EXPECT_EQ(sorted[i], i + 1);
}

TEST(AtomicsTest, ContentionOneHostThread) { run_atomics(1); }
TEST(AtomicsTest, ContentionTwoHostThreads) { run_atomics(2); }

}  // namespace
}  // namespace marlin::sim

namespace marlin::sim {
namespace {

TEST(AtomicsTest, ThreadgroupCounterIsNotARace) {
  std::vector<std::uint32_t> out(3, 0);
  LaunchSpec s = testing::spec("test_threadgroup_atomic", {3, 1, 1}, {96, 1, 1});
  s.buffers[0] = testing::buffer(out);
  const LaunchResult r = launch(s);
  EXPECT_TRUE(r.ok());
  for (std::uint32_t v : out) EXPECT_EQ(v, 96u * 97u / 2u);
  EXPECT_EQ(r.threadgroup_memory_bytes, 4u);
}

}  // namespace
}  // namespace marlin::sim
