// host_share(): a thread's share of a host core between two readings of its times, and the
// schedstat line it reads the run delay from (model/timing/host_share.h).
#include "model/timing/host_share.h"

#include <gtest/gtest.h>

#include <chrono>

namespace marlin::timing {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(HostShareTest, ReadsTheRunDelayOfASchedstatLine) {
  EXPECT_EQ(run_delay_of_schedstat("1882854 11050 1\n"), nanoseconds(11050));
  EXPECT_EQ(run_delay_of_schedstat("5 0 7"), nanoseconds(0));
  EXPECT_FALSE(run_delay_of_schedstat(""));
  EXPECT_FALSE(run_delay_of_schedstat("12 34"));
  EXPECT_FALSE(run_delay_of_schedstat("12 x 3"));
  EXPECT_FALSE(run_delay_of_schedstat("1 2 3 4"));
}

TEST(HostShareTest, IsOneMinusTheWaitForAProcessorWhereTheHostReportsIt) {
  // 100 ms of wall time, 60 ms of processor time (the rest taken by the hypervisor or other
  // threads), 10 ms runnable behind other threads: 0.9 of a core.
  const ThreadTimes from{
      .wall = milliseconds(1000), .cpu = milliseconds(500), .waited = milliseconds(40)};
  const ThreadTimes to{
      .wall = milliseconds(1100), .cpu = milliseconds(560), .waited = milliseconds(50)};
  EXPECT_DOUBLE_EQ(host_share(from, to), 0.9);
}

TEST(HostShareTest, IsTheProcessorTimeOverTheWallTimeWithoutTheWait) {
  ThreadTimes from{.wall = milliseconds(1000), .cpu = milliseconds(500), .waited = {}};
  ThreadTimes to{.wall = milliseconds(1100), .cpu = milliseconds(560), .waited = {}};
  EXPECT_DOUBLE_EQ(host_share(from, to), 0.6);
  // Either end without it: the processor time.
  to.waited = milliseconds(50);
  EXPECT_DOUBLE_EQ(host_share(from, to), 0.6);
}

TEST(HostShareTest, StaysWithinZeroAndOne) {
  const ThreadTimes from{.wall = milliseconds(0), .cpu = milliseconds(0), .waited = {}};
  EXPECT_DOUBLE_EQ(host_share(from, from), 1.0);  // no wall time passed
  const ThreadTimes over{.wall = milliseconds(10), .cpu = milliseconds(12), .waited = {}};
  EXPECT_DOUBLE_EQ(host_share(from, over), 1.0);
  const ThreadTimes w0{.wall = milliseconds(0), .cpu = milliseconds(0), .waited = milliseconds(0)};
  const ThreadTimes w1{
      .wall = milliseconds(10), .cpu = milliseconds(0), .waited = milliseconds(15)};
  EXPECT_DOUBLE_EQ(host_share(w0, w1), 0.0);
}

TEST(HostShareTest, ReadsTheCallingThreadsTimes) {
  const ThreadTimes a = thread_times_now();
  const ThreadTimes b = thread_times_now();
  EXPECT_GE(b.wall, a.wall);
  EXPECT_GE(b.cpu, a.cpu);
  EXPECT_EQ(a.waited.has_value(), b.waited.has_value());
  if (a.waited) {
    EXPECT_GE(*b.waited, *a.waited);
  }
}

}  // namespace
}  // namespace marlin::timing
