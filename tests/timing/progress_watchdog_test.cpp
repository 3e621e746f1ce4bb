#include "model/timing/progress_watchdog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace marlin::timing {
namespace {

using ::testing::HasSubstr;

// Takes `idle` steps at one progress count after a first step that sets it.
void idle_steps(ProgressWatchdog& watchdog, std::int64_t progress, int idle) {
  watchdog.step(progress, Cycles(0));
  for (int i = 0; i < idle; ++i) watchdog.step(progress, Cycles(i + 1));
}

TEST(ProgressWatchdog, AllowsExactlyTheBoundOfIdleSteps) {
  ProgressWatchdog at_bound(3);
  EXPECT_NO_THROW(idle_steps(at_bound, 7, 3));
  ProgressWatchdog over_bound(3);
  EXPECT_THROW(idle_steps(over_bound, 7, 4), InvariantError);
}

TEST(ProgressWatchdog, ProgressResetsTheIdleCount) {
  ProgressWatchdog watchdog(2);
  // Two idle steps, progress, two idle steps again: never more than two in a row.
  for (std::int64_t progress = 0; progress < 1000; ++progress) {
    EXPECT_NO_THROW(idle_steps(watchdog, progress, 2)) << "at progress " << progress;
  }
}

TEST(ProgressWatchdog, TheFirstStepIsProgressEvenAtCountZero) {
  ProgressWatchdog watchdog(0);
  EXPECT_NO_THROW(watchdog.step(0, Cycles(0)));
  EXPECT_THROW(watchdog.step(0, Cycles(1)), InvariantError);
}

TEST(ProgressWatchdog, TheErrorNamesTheCycleAndTheIdleSteps) {
  ProgressWatchdog watchdog(1);
  watchdog.step(5, Cycles(100));
  watchdog.step(5, Cycles(101));
  try {
    watchdog.step(5, Cycles(102));
    FAIL() << "expected an InvariantError";
  } catch (const InvariantError& e) {
    EXPECT_THAT(e.what(), HasSubstr("2 steps up to cycle 102"));
    EXPECT_THAT(e.what(), HasSubstr("issued no instruction"));
  }
}

TEST(ProgressWatchdog, TheReplayBoundIsFarAboveItsLongestIdleRun) {
  // The longest idle run measured over the suite and the CLI's runs is 16 steps; the bound
  // must not come near it, and must stay small enough to fail in well under a second.
  EXPECT_GE(kReplayMaxIdleSteps, 1000 * 16);
  EXPECT_LE(kReplayMaxIdleSteps, std::int64_t{1} << 24);
}

}  // namespace
}  // namespace marlin::timing
