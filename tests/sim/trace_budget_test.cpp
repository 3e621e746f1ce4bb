// The bound on a launch's traces: exact accounting, the early estimate, and a real launch.
#include "sim/runtime/trace_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using ::testing::HasSubstr;

// One threadgroup's traces: `simdgroups` traces of `ops` ops and `accesses` accesses each.
std::vector<SimdgroupTrace> threadgroup(int simdgroups, std::size_t ops, std::size_t accesses) {
  std::vector<SimdgroupTrace> out(static_cast<std::size_t>(simdgroups));
  for (SimdgroupTrace& t : out) {
    t.ops = std::vector<TraceOp>(ops);
    t.accesses = std::vector<MemAccess>(accesses);
  }
  return out;
}

// Its size by hand: TraceOp is 16 bytes, MemAccess 8.
std::uint64_t bytes_of(int simdgroups, std::size_t ops, std::size_t accesses) {
  return static_cast<std::uint64_t>(simdgroups) *
         (sizeof(SimdgroupTrace) + 16 * ops + 8 * accesses);
}

TEST(TraceBudgetTest, CountsTheOpsAndAccessesOfEveryTrace) {
  for (const SimdgroupTrace& t : threadgroup(1, 10, 3)) {
    EXPECT_EQ(trace_bytes(t), bytes_of(1, 10, 3));
  }
}

TEST(TraceBudgetTest, AllowsExactlyTheLimit) {
  const std::uint64_t one = bytes_of(4, 100, 50);
  TraceBudget at_limit(3 * one, 3, "k");
  for (std::uint64_t i = 0; i < 3; ++i) {
    EXPECT_NO_THROW(at_limit.account(i, threadgroup(4, 100, 50))) << i;
  }
  TraceBudget below(3 * one - 1, 3, "k");
  EXPECT_NO_THROW(below.account(0, threadgroup(4, 100, 50)));
  EXPECT_NO_THROW(below.account(1, threadgroup(4, 100, 50)));
  EXPECT_THROW(below.account(2, threadgroup(4, 100, 50)), TraceLimitExceeded);
}

TEST(TraceBudgetTest, NoLimitAccountsNothing) {
  TraceBudget none(0, 2, "k");
  EXPECT_NO_THROW(none.account(0, threadgroup(4, 1000, 1000)));
  EXPECT_NO_THROW(none.account(1, threadgroup(4, 1000, 1000)));
}

TEST(TraceBudgetTest, RefusesEarlyWhenTheLaunchWouldTakeOverTheMarginTimesTheLimit) {
  // 1000 threadgroups of `one` bytes: 1000 * one > 1.5 * limit, and the first eight fit.
  const std::uint64_t one = bytes_of(2, 64, 32);
  TraceBudget budget(666 * one, 1000, "big_kernel");
  for (std::uint64_t i = 0; i < 7; ++i) EXPECT_NO_THROW(budget.account(i, threadgroup(2, 64, 32)));
  try {
    budget.account(7, threadgroup(2, 64, 32));
    FAIL() << "expected TraceLimitExceeded at the eighth probe";
  } catch (const TraceLimitExceeded& e) {
    EXPECT_THAT(e.what(), HasSubstr("kernel 'big_kernel'"));
    EXPECT_THAT(e.what(), HasSubstr("its 1000 threadgroups"));
    EXPECT_THAT(e.what(), HasSubstr("smallest of the first 8"));
  }
}

TEST(TraceBudgetTest, TheEstimateUsesTheSmallestProbeInAnyOrder) {
  // Probes 1..7 are large and probe 0, accounted last, is small: 1000 small ones fit twice the
  // limit times 1.5, so nothing is refused early even though the large ones would not.
  const std::uint64_t small = bytes_of(1, 10, 0);
  TraceBudget budget(667 * small + 7 * bytes_of(1, 1000, 0), 1000, "k");
  for (std::uint64_t i = 1; i < 8; ++i) {
    EXPECT_NO_THROW(budget.account(i, threadgroup(1, 1000, 0))) << i;
  }
  EXPECT_NO_THROW(budget.account(0, threadgroup(1, 10, 0)));
  // Threadgroups past the probes do not change the estimate; the total still bounds them.
  EXPECT_NO_THROW(budget.account(8, threadgroup(1, 10, 0)));
}

TEST(TraceBudgetTest, DoesNotRefuseEarlyAtTheMarginTimesTheLimit) {
  // 1500 threadgroups at exactly 1.5 times the limit: no early refusal; the total refuses
  // when the 1001st is accounted.
  const std::uint64_t one = bytes_of(1, 8, 8);
  TraceBudget budget(1000 * one, 1500, "k");
  for (std::uint64_t i = 0; i < 1000; ++i) {
    ASSERT_NO_THROW(budget.account(i, threadgroup(1, 8, 8))) << i;
  }
  EXPECT_THROW(budget.account(1000, threadgroup(1, 8, 8)), TraceLimitExceeded);
}

TEST(TraceBudgetTest, ALaunchOverItsLimitStopsAndOneWithinRunsUnchanged) {
  const std::uint32_t n = 4096;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  struct {
    std::uint32_t n;
    float alpha;
  } params{n, 3.0f};
  LaunchSpec s = testing::spec("test_axpy", {64, 1, 1}, {64, 1, 1});
  s.buffers[0] = testing::buffer(x);
  s.buffers[1] = testing::buffer(y);
  s.buffers[2] = testing::buffer(params);
  s.options.host_threads = 2;
  const LaunchResult unlimited = launch(s);
  std::uint64_t total = 0;
  for (const SimdgroupTrace& t : unlimited.trace.simdgroups) {
    total += sizeof(SimdgroupTrace) + 16 * t.ops.size() + 8 * t.accesses.size();
  }
  s.options.max_trace_bytes = total;
  EXPECT_EQ(launch(s).trace.simdgroups, unlimited.trace.simdgroups);
  s.options.max_trace_bytes = total - 1;
  EXPECT_THROW(launch(s), TraceLimitExceeded);
  s.options.trace = false;  // nothing recorded, nothing bounded
  EXPECT_NO_THROW(launch(s));
}

}  // namespace
}  // namespace marlin::sim
