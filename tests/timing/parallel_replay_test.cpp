// The parallel replay (TimingOptions::replay_threads) gives exactly the results of the serial
// one: a differential test on pseudo-random launches (ALU runs of every kind, threadgroup and
// device loads, stores, barriers, matrix multiplies; one wave and several), comparing every
// result field, every counter and the L2's reuse distances, at 2 and 3 threads.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "model/common/input_error.h"
#include "model/timing/gpu_timing_model.h"
#include "tests/timing/replay_differential.h"
#include "tests/timing/timing_fixtures.h"

namespace marlin::timing {
namespace {

using testing::random_launch;

// The test device with 2, 3 or 4 cores, by seed.
model::DeviceSpec device_of_seed(std::uint64_t seed) {
  model::DeviceSpec device = testing::test_device();
  device.gpu.cores = 2 + static_cast<int>(seed % 3);
  return device;
}

// Seeds 1-60: up to 10 threadgroups, 1-3 resident per core (mostly one wave: the whole launch
// runs in parallel windows). Seeds 61-200: up to 24, 1-4 resident (several waves: the tail
// does). On 2, 3 or 4 cores; every other seed with the ports modelled.
TEST(ParallelReplay, SameResultsAsSerial) {
  std::int64_t windows = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const bool dense = seed > 60;
    const sim::LaunchTrace launch = random_launch(seed, dense ? 24 : 10);
    const int resident = 1 + static_cast<int>(seed % (dense ? 4 : 3));
    const LaunchInput input = testing::input_of(launch, resident);
    model::DeviceSpec device = device_of_seed(seed);
    if (seed % 4 == 1) device.memory.l1_bytes_per_cycle = 64;
    if (seed % 4 == 3) device.memory.l2_bytes_per_cycle = 96;
    TimingOptions serial{.issue_policy = seed % 2 == 0 ? IssuePolicy::kOldestFirst
                                                       : IssuePolicy::kGreedyThenOldest};
    serial.l2_reuse_distances = true;
    const TimingResult a = GpuTimingModel(device, serial).run(input);
    EXPECT_EQ(a.parallel_windows, 0);
    for (const int threads : {2, 3}) {
      TimingOptions parallel = serial;
      parallel.replay_threads = threads;
      const TimingResult b = GpuTimingModel(device, parallel).run(input);
      ASSERT_EQ(a, b) << "seed " << seed << ", " << threads << " threads";
      ASSERT_EQ(a.l2_reuse.sorted, b.l2_reuse.sorted) << "seed " << seed;
      ASSERT_EQ(a.l2_reuse.first_accesses, b.l2_reuse.first_accesses) << "seed " << seed;
      windows += b.parallel_windows;
    }
  }
  // The comparison is about the parallel path: most of the replays took it.
  EXPECT_GT(windows, 200 * 2 * 10);
}

// Cores moved between the threads' partitions every round or few (PartitionBalance::kSweep,
// which walks each boundary from end to end and back) change no result, nor does keeping the
// first split (kOff).
TEST(ParallelReplay, MovingCoresBetweenThreadsKeepsTheSerialResults) {
  std::int64_t moves = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    const bool dense = seed > 40;
    const sim::LaunchTrace launch = random_launch(seed, dense ? 24 : 10);
    const LaunchInput input = testing::input_of(launch, 1 + static_cast<int>(seed % 4));
    model::DeviceSpec device = device_of_seed(seed + 1);  // 3 and 4 cores first
    if (seed % 4 == 1) device.memory.l1_bytes_per_cycle = 64;
    const TimingResult serial = GpuTimingModel(device).run(input);
    for (const int threads : {2, 3}) {
      TimingOptions swept;
      swept.replay_threads = threads;
      swept.partition_balance = PartitionBalance::kSweep;
      swept.rebalance_windows = 1 + static_cast<int>(seed % 3);
      const TimingResult moved = GpuTimingModel(device, swept).run(input);
      ASSERT_EQ(moved, serial) << "seed " << seed << ", " << threads << " threads";
      moves += moved.partition_moves;
      TimingOptions kept;
      kept.replay_threads = threads;
      kept.partition_balance = PartitionBalance::kOff;
      const TimingResult fixed = GpuTimingModel(device, kept).run(input);
      ASSERT_EQ(fixed, serial) << "seed " << seed << ", " << threads << " threads";
      EXPECT_EQ(fixed.partition_moves, 0);
    }
  }
  // The comparison is about moved cores: they moved thousands of times.
  EXPECT_GT(moves, 1000);
}

// With a gate (TimingOptions::parallel_gate; a streamed run opens it when its engine is done)
// the cores go side by side only once it is open, whenever that is, and the results are the
// serial ones: gate closed throughout, open from the start, and opened by another thread
// while the replay runs (at a time that varies from run to run).
TEST(ParallelReplay, WaitsForItsGateAndKeepsTheSerialResults) {
  std::int64_t open_windows = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const sim::LaunchTrace launch = testing::looped_launch(seed, 12);
    const LaunchInput input = testing::input_of(launch, 1 + static_cast<int>(seed % 3));
    const model::DeviceSpec device = device_of_seed(seed);
    const TimingResult serial = GpuTimingModel(device).run(input);
    std::atomic<bool> gate{false};
    TimingOptions gated;
    gated.replay_threads = 2;
    gated.parallel_gate = &gate;
    const TimingResult closed = GpuTimingModel(device, gated).run(input);
    ASSERT_EQ(closed, serial) << "seed " << seed;
    EXPECT_EQ(closed.parallel_windows, 0) << "seed " << seed;
    gate = true;
    const TimingResult open = GpuTimingModel(device, gated).run(input);
    ASSERT_EQ(open, serial) << "seed " << seed;
    open_windows += open.parallel_windows;
    gate = false;
    std::thread opener([&] {
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(20 * seed);
      while (std::chrono::steady_clock::now() < until) {
      }
      gate = true;
    });
    const TimingResult opened = GpuTimingModel(device, gated).run(input);
    opener.join();
    ASSERT_EQ(opened, serial) << "seed " << seed;
  }
  EXPECT_GT(open_windows, 30 * 10);
}

// TimingOptions::threadgroups_ended counts each threadgroup once, however many threads end
// them, and changes no result.
TEST(ParallelReplay, CountsTheThreadgroupsItEnds) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const sim::LaunchTrace launch = testing::looped_launch(seed, 12);
    const LaunchInput input = testing::input_of(launch, 1 + static_cast<int>(seed % 3));
    const model::DeviceSpec device = device_of_seed(seed);
    const TimingResult plain = GpuTimingModel(device).run(input);
    for (const int threads : {1, 2}) {
      std::atomic<std::uint64_t> ended{0};
      TimingOptions counted;
      counted.replay_threads = threads;
      counted.threadgroups_ended = &ended;
      ASSERT_EQ(GpuTimingModel(device, counted).run(input), plain) << "seed " << seed;
      const auto& grid = launch.threadgroups_per_grid;
      EXPECT_EQ(ended.load(), std::uint64_t{grid[0]} * grid[1] * grid[2])
          << "seed " << seed << ", " << threads << " threads";
    }
  }
}

// A launch replayed with an event sink keeps one thread (the sink's calls are in order).
TEST(ParallelReplay, EventSinkKeepsTheSerialReplay) {
  const sim::LaunchTrace launch = random_launch(7, 10);
  TimingOptions options;
  options.replay_threads = 2;
  testing::RecordingSink sink;
  const TimingResult r =
      GpuTimingModel(testing::test_device(), options).run(testing::input_of(launch, 2), &sink);
  EXPECT_EQ(r.parallel_windows, 0);
  EXPECT_EQ(r, GpuTimingModel(testing::test_device()).run(testing::input_of(launch, 2)));
}

// Parallel parts that stop for serial steps and start again, as on a host busy with other
// work (TimingOptions::min_host_share; alternate_parallel makes the stops regular), keep the
// serial results: every stop merges the threads' cores, threadgroup ends and counters, and the
// serial steps go on from the round the parallel part stopped before.
TEST(ParallelReplay, SerialStepsBetweenParallelPartsKeepTheSerialResults) {
  std::int64_t stops = 0;
  std::int64_t windows = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    const bool dense = seed > 40;
    const sim::LaunchTrace launch = random_launch(seed, dense ? 24 : 10);
    const LaunchInput input = testing::input_of(launch, 1 + static_cast<int>(seed % 4));
    model::DeviceSpec device = device_of_seed(seed);
    if (seed % 4 == 1) device.memory.l1_bytes_per_cycle = 64;
    const TimingResult serial = GpuTimingModel(device).run(input);
    for (const int threads : {2, 3}) {
      TimingOptions alternating;
      alternating.replay_threads = threads;
      alternating.alternate_parallel = 1 + static_cast<int>(seed % 5);
      if (seed % 3 == 0) {
        alternating.partition_balance = PartitionBalance::kSweep;
        alternating.rebalance_windows = 1;
      }
      const TimingResult b = GpuTimingModel(device, alternating).run(input);
      ASSERT_EQ(b, serial) << "seed " << seed << ", " << threads << " threads";
      stops += b.parallel_stops;
      windows += b.parallel_windows;
    }
  }
  // The comparison is about stopped parallel parts: thousands of stops, between windows run.
  EXPECT_GT(stops, 1000);
  EXPECT_GT(windows, stops);
}

// A host share of 0 turns the measurement off: the windows go on to the launch's end.
TEST(ParallelReplay, AZeroHostShareNeverStopsTheWindows) {
  const sim::LaunchTrace launch = random_launch(7, 24);
  const LaunchInput input = testing::input_of(launch, 2);
  TimingOptions options;
  options.replay_threads = 2;
  options.min_host_share = 0;  // never measured as too low
  const TimingResult r = GpuTimingModel(device_of_seed(7), options).run(input);
  EXPECT_GT(r.parallel_windows, 0);
  EXPECT_EQ(r.parallel_stops, 0);
}

TEST(ParallelReplay, RefusesOutOfRangeHostShareAndAlternation) {
  TimingOptions share;
  share.min_host_share = 1.5;
  EXPECT_THROW(GpuTimingModel(testing::test_device(), share), InputError);
  TimingOptions alternate;
  alternate.alternate_parallel = -1;
  EXPECT_THROW(GpuTimingModel(testing::test_device(), alternate), InputError);
}

TEST(ParallelReplay, RefusesFewerThanOneThread) {
  TimingOptions options;
  options.replay_threads = 0;
  EXPECT_THROW(GpuTimingModel(testing::test_device(), options), InputError);
}

TEST(ParallelReplay, RefusesANegativeRebalancePeriod) {
  TimingOptions options;
  options.rebalance_windows = -1;
  EXPECT_THROW(GpuTimingModel(testing::test_device(), options), InputError);
}

}  // namespace
}  // namespace marlin::timing
