// run_parallel_jobs: every job once, progress after each, and a failure reported by job order.
#include "tools/cli/parallel_jobs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace marlin::cli {
namespace {

TEST(ParallelJobs, RunsEveryJobOnceAndReportsProgressAfterEach) {
  std::vector<std::atomic<int>> runs(50);
  std::vector<std::size_t> reported;
  run_parallel_jobs(
      runs.size(), 3, [&](std::size_t i) { ++runs[i]; },
      [&](std::size_t done, std::size_t count) {
        EXPECT_EQ(count, 50u);
        reported.push_back(done);
      });
  for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << i;
  ASSERT_EQ(reported.size(), 50u);
  for (std::size_t i = 0; i < reported.size(); ++i) EXPECT_EQ(reported[i], i + 1);
}

// Job 7 fails at once, job 3 only after a pause: job 3's failure is the one rethrown, and
// every job still ran, at one thread and at several.
TEST(ParallelJobs, RethrowsTheFailureOfTheLowestJobAfterAllRan) {
  for (const unsigned threads : {1U, 3U}) {
    std::atomic<int> ran{0};
    try {
      run_parallel_jobs(10, threads,
                        [&](std::size_t i) {
                          ++ran;
                          if (i == 3) {
                            std::this_thread::sleep_for(std::chrono::milliseconds(50));
                            throw std::runtime_error("job 3");
                          }
                          if (i == 7) throw std::invalid_argument("job 7");
                        },
                        {});
      ADD_FAILURE() << "no failure rethrown at " << threads << " threads";
    } catch (const std::runtime_error& error) {
      EXPECT_EQ(std::string(error.what()), "job 3") << threads;
    }
    EXPECT_EQ(ran.load(), 10) << threads;
  }
}

}  // namespace
}  // namespace marlin::cli
