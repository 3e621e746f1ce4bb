// TraceStream and streamed replay: the stream's blocking rules, and a launch replayed from a
// stream fed threadgroup by threadgroup by several producer threads gives exactly the results
// of replaying its whole trace (differential, on pseudo-random multi-wave launches).
#include "model/timing/trace_stream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <thread>
#include <vector>

#include "model/common/input_error.h"
#include "model/common/invariant.h"
#include "model/timing/gpu_timing_model.h"
#include "sim/runtime/trace_budget.h"
#include "sim/runtime/trace_translation.h"
#include "tests/timing/replay_differential.h"
#include "tests/timing/timing_fixtures.h"

namespace marlin::timing {
namespace {

using ::testing::HasSubstr;

sim::LaunchHeader header_of(const sim::LaunchTrace& t) {
  return {t.kernel, t.threadgroups_per_grid, t.threads_per_threadgroup, t.threadgroup_memory_bytes};
}

std::vector<sim::SimdgroupTrace> one_trace(std::uint32_t tg, std::size_t ops) {
  std::vector<sim::SimdgroupTrace> out(1);
  out[0].threadgroup = {tg, 0, 0};
  out[0].ops.resize(ops, testing::alu_op(sim::AluKind::kFp32Fma, 1));
  return out;
}

// Feeds `launch` into `stream` as the engine would: `producers` threads take threadgroups in
// increasing linear order from a shared counter and put each one's traces (simdgroups in
// order), after yielding a pseudo-random number of times so that puts arrive out of order.
// Stops quietly when the stream is aborted.
class Feeder {
 public:
  Feeder(TraceStream& stream, const sim::LaunchTrace& launch, int producers, std::uint64_t seed) {
    const auto& g = launch.threadgroups_per_grid;
    total_ = g[0] * g[1] * g[2];
    // Every threadgroup has an entry before the producers start (they only read the map).
    for (std::uint32_t i = 0; i < total_; ++i) by_threadgroup_[i];
    for (const sim::SimdgroupTrace& sg : launch.simdgroups) {
      const std::uint32_t linear =
          sg.threadgroup[0] + g[0] * (sg.threadgroup[1] + g[1] * sg.threadgroup[2]);
      by_threadgroup_[linear].push_back(sg);
    }
    stream.begin_launch(header_of(launch));
    for (int p = 0; p < producers; ++p) {
      threads_.emplace_back([this, &stream, p, seed] {
        testing::Random random(seed * 7 + static_cast<std::uint64_t>(p));
        try {
          for (std::uint32_t i = next_++; i < total_; i = next_++) {
            for (std::uint32_t y = random.below(50); y > 0; --y) std::this_thread::yield();
            stream.put(i, by_threadgroup_.at(i));
          }
        } catch (const TraceStreamAborted&) {
          aborted_ = true;
        }
      });
    }
  }
  ~Feeder() { join(); }
  void join() {
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  bool aborted() const { return aborted_; }

 private:
  std::uint32_t total_ = 0;
  std::map<std::uint32_t, std::vector<sim::SimdgroupTrace>> by_threadgroup_;
  std::atomic<std::uint32_t> next_{0};
  std::atomic<bool> aborted_{false};
  std::vector<std::thread> threads_;
};

TEST(TraceStreamTest, HandsThreadgroupsOverInOrder) {
  TraceStream stream(2);
  std::thread producer([&] {
    stream.begin_launch({"k", {3, 1, 1}, {32, 1, 1}, 0});
    for (std::uint32_t i = 0; i < 3; ++i) stream.put(i, one_trace(i, i + 1));
  });
  EXPECT_EQ(stream.header().kernel, "k");
  for (std::uint32_t i = 0; i < 3; ++i) {
    const std::vector<StreamedTrace> got = stream.take(i);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].threadgroup()[0], i);
    EXPECT_EQ(got[0].op_count(), i + 1);
  }
  producer.join();
}

// A fast producer puts 20 threadgroups while a slow consumer takes each after `pause`;
// returns the most the stream held at once.
std::size_t peak_with_a_slow_consumer(TraceStream& stream, std::chrono::microseconds pause) {
  std::thread producer([&] {
    stream.begin_launch({"k", {20, 1, 1}, {32, 1, 1}, 0});
    for (std::uint32_t i = 0; i < 20; ++i) stream.put(i, one_trace(i, 4));
  });
  for (std::uint32_t i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(pause);
    EXPECT_EQ(stream.take(i)[0].threadgroup()[0], i);
  }
  producer.join();
  return stream.peak_held();
}

TEST(TraceStreamTest, HoldsAtMostTheWindow) {
  // Without the window the producer would put all 20 before the consumer takes the second.
  for (const std::uint32_t window : {1u, 3u}) {
    TraceStream stream(window);
    const std::size_t peak = peak_with_a_slow_consumer(stream, std::chrono::microseconds(200));
    EXPECT_LE(peak, window);
    EXPECT_GE(peak, 1u);
  }
}

// The launch's limit may widen the window: 3 here, for a stream made with 1.
TEST(TraceStreamTest, TheLimitSetsTheLaunchsWindow) {
  TraceStream stream(1, [](const sim::LaunchHeader&) {
    return HeldLimit{.threadgroups = 0, .bytes = 0, .held = "", .window = 3};
  });
  const std::size_t peak = peak_with_a_slow_consumer(stream, std::chrono::milliseconds(1));
  EXPECT_LE(peak, 3u);
  EXPECT_GE(peak, 2u);  // more than the stream's own window
}

TEST(TraceStreamTest, AbortReleasesBothSides) {
  TraceStream stream(1);
  stream.begin_launch({"k", {4, 1, 1}, {32, 1, 1}, 0});
  stream.put(0, one_trace(0, 1));
  std::atomic<bool> put_threw{false};
  std::thread producer([&] {  // blocks: threadgroup 0 is held and not taken
    try {
      stream.put(1, one_trace(1, 1));
    } catch (const TraceStreamAborted&) {
      put_threw = true;
    }
  });
  EXPECT_EQ(stream.take(0).size(), 1u);
  std::atomic<bool> take_threw{false};
  std::thread consumer([&] {  // blocks until threadgroup 2 arrives, which it never does
    try {
      stream.take(1);
      stream.take(2);
    } catch (const TraceStreamAborted&) {
      take_threw = true;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stream.abort();
  producer.join();
  consumer.join();
  EXPECT_TRUE(take_threw);
  EXPECT_FALSE(put_threw);  // the consumer took threadgroup 0, so the put of 1 went through
  EXPECT_THROW(stream.put(3, one_trace(3, 1)), TraceStreamAborted);
  EXPECT_THROW((void)stream.header(), TraceStreamAborted);
}

TEST(TraceStreamTest, ABlockedPutThrowsOnAbort) {
  TraceStream stream(1);
  stream.begin_launch({"k", {4, 1, 1}, {32, 1, 1}, 0});
  stream.put(0, one_trace(0, 1));
  std::atomic<bool> put_threw{false};
  std::thread producer([&] {
    try {
      stream.put(1, one_trace(1, 1));
    } catch (const TraceStreamAborted&) {
      put_threw = true;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stream.abort();
  producer.join();
  EXPECT_TRUE(put_threw);
}

// A main loop is held packed: 1,000 steps of a 32-lane load and an ALU op take 288,064 bytes
// as the engine makes them, and pass a limit of 5 threadgroups in 20,000 bytes.
TEST(TraceStreamTest, HoldsLoopsPacked) {
  std::vector<sim::SimdgroupTrace> loop(1);
  for (std::uint32_t step = 0; step < 1000; ++step) {
    testing::add_memory_op(loop[0], sim::OpClass::kDeviceLoad, 1, 256 * step, 4, 4);
    loop[0].ops.push_back(testing::alu_op(sim::AluKind::kFp16Fma, 12, 2 * step));
  }
  ASSERT_EQ(sim::trace_bytes(loop[0]), 64 + 16 * 2000 + 8 * 32000);
  TraceStream stream(4, [](const sim::LaunchHeader&) { return HeldLimit{5, 20000, "five"}; });
  stream.begin_launch({"k", {1, 1, 1}, {32, 1, 1}, 0});
  stream.put(0, loop);
  const std::vector<StreamedTrace> held = stream.take(0);
  ASSERT_EQ(held.size(), 1u);
  ASSERT_NE(held[0].packed, nullptr);
  EXPECT_LT(held[0].footprint(), 4000u);
  EXPECT_EQ(unpack_trace(*held[0].packed), loop[0]);
}

// A loop of device loads of buffer 1 from `base` on and of buffer 2 at a fixed offset, with
// ALU ops between, in threadgroup `tg`.
std::vector<sim::SimdgroupTrace> two_buffer_loop(std::uint32_t tg, std::uint32_t base) {
  std::vector<sim::SimdgroupTrace> out(1);
  out[0].threadgroup = {tg, 0, 0};
  for (std::uint32_t step = 0; step < 100; ++step) {
    testing::add_memory_op(out[0], sim::OpClass::kDeviceLoad, 1, base + 256 * step, 4, 4);
    testing::add_memory_op(out[0], sim::OpClass::kDeviceLoad, 2, 64, 4, 4);
    out[0].ops.push_back(testing::alu_op(sim::AluKind::kFp16Fma, 12, 3 * step));
  }
  return out;
}

// A translated threadgroup's trace as the replay reads it: its base's packed trace unpacked,
// each access moved by its buffer's shift.
sim::SimdgroupTrace read_translated(const StreamedTrace& held) {
  sim::BufferShifts shifts;
  for (const sim::BufferShift& s : held.shifts) shifts.set(s.buffer, s.shift);
  return sim::translate_traces({unpack_trace(*held.packed)}, shifts, held.threadgroup())[0];
}

// Translated threadgroups are held as readings of their base's traces, packed once and shared:
// read with their shifts, they are the traces the engine would have built.
TEST(TraceStreamTest, HoldsTranslatedThreadgroupsAsReadingsOfTheBase) {
  TraceStream stream(4, [](const sim::LaunchHeader&) { return HeldLimit{5, 20000, "five"}; });
  stream.begin_launch({"k", {3, 1, 1}, {32, 1, 1}, 0});
  const std::vector<sim::SimdgroupTrace> base = two_buffer_loop(0, 0);
  stream.put(0, base);
  const std::vector<sim::BufferShift> by_one{{1, 4096}};
  const std::vector<sim::BufferShift> by_two{{1, 8192}};
  ASSERT_TRUE(stream.put_translated(1, base, by_one, {1, 0, 0}));
  ASSERT_TRUE(stream.put_translated(2, base, by_two, {2, 0, 0}));
  stream.take(0);
  const std::vector<StreamedTrace> one = stream.take(1);
  const std::vector<StreamedTrace> two = stream.take(2);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(one[0].packed, two[0].packed);  // shared
  EXPECT_EQ(one[0].threadgroup(), (std::array<std::uint32_t, 3>{1, 0, 0}));
  EXPECT_LT(one[0].footprint(), 200u);
  EXPECT_EQ(read_translated(one[0]), two_buffer_loop(1, 4096)[0]);
  EXPECT_EQ(read_translated(two[0]), two_buffer_loop(2, 8192)[0]);
}

TEST(TraceStreamTest, RefusesAnEmptyWindowAndOutOfOrderTakes) {
  EXPECT_THROW(TraceStream(0), InvariantError);
  TraceStream stream(4);
  stream.begin_launch({"k", {4, 1, 1}, {32, 1, 1}, 0});
  stream.put(1, one_trace(1, 1));
  EXPECT_THROW(stream.take(1), InvariantError);
}

// Two device loads of 32 one-record accesses whose records are not in op order, so the stream
// keeps the trace as it is: 64 bytes of SimdgroupTrace, 16 per op and 8 per access record
// (trace_budget.h), by hand.
std::vector<sim::SimdgroupTrace> unpackable_trace(std::uint32_t tg) {
  std::vector<sim::SimdgroupTrace> out(1);
  out[0].threadgroup = {tg, 0, 0};
  testing::add_memory_op(out[0], sim::OpClass::kDeviceLoad, 1, 0, 4, 4);
  testing::add_memory_op(out[0], sim::OpClass::kDeviceLoad, 1, 128, 4, 4);
  std::swap(out[0].ops[0].first_access, out[0].ops[1].first_access);
  return out;
}

// put() gives back the traces it packed, with their vectors, for the engine to build its next
// threadgroup in; a trace it keeps as it is stays with the stream, and the replay gets both.
TEST(TraceStreamTest, GivesBackThePackedTracesVectors) {
  TraceStream stream(4);
  stream.begin_launch({"k", {2, 1, 1}, {32, 1, 1}, 0});
  const std::vector<sim::SimdgroupTrace> packable = one_trace(0, 1000);
  const std::vector<sim::SimdgroupTrace> back = stream.put(0, packable);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_GE(back[0].ops.capacity(), 1000u);
  const std::vector<sim::SimdgroupTrace> kept = stream.put(1, unpackable_trace(1));
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].ops.capacity(), 0u);
  const std::vector<StreamedTrace> first = stream.take(0);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_NE(first[0].packed, nullptr);
  EXPECT_EQ(first[0].op_count(), 1000u);
  const std::vector<StreamedTrace> second = stream.take(1);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].packed, nullptr);
  EXPECT_EQ(second[0].plain, unpackable_trace(1)[0]);
}

// A base the packed form cannot hold is not taken as a translation: the engine puts the
// threadgroup's own traces instead.
TEST(TraceStreamTest, TakesNoTranslationOfAnUnpackableBase) {
  TraceStream stream(4);
  stream.begin_launch({"k", {2, 1, 1}, {32, 1, 1}, 0});
  const std::vector<sim::SimdgroupTrace> base = unpackable_trace(0);
  stream.put(0, base);
  EXPECT_FALSE(stream.put_translated(1, base, {}, {1, 0, 0}));
  stream.put(1, unpackable_trace(1));
  stream.take(0);
  const std::vector<StreamedTrace> second = stream.take(1);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].plain, unpackable_trace(1)[0]);
}

TEST(TraceStreamTest, BoundsTheTracesHeldAtOnce) {
  const std::uint64_t one = 64 + 16 * 2 + 8 * 64;
  ASSERT_EQ(sim::trace_bytes(unpackable_trace(0)[0]), one);
  const auto limited = [](std::uint64_t bytes) {
    return [bytes](const sim::LaunchHeader&) { return HeldLimit{5, bytes, "five"}; };
  };
  TraceStream at_limit(4, limited(5 * one));
  at_limit.begin_launch({"k", {2, 1, 1}, {32, 1, 1}, 0});
  EXPECT_NO_THROW(at_limit.put(0, unpackable_trace(0)));
  TraceStream below(4, limited(5 * one - 1));
  below.begin_launch({"k", {2, 1, 1}, {32, 1, 1}, 0});
  try {
    below.put(1, unpackable_trace(1));
    FAIL() << "expected TraceLimitExceeded";
  } catch (const sim::TraceLimitExceeded& e) {
    EXPECT_THAT(e.what(), HasSubstr("kernel 'k': threadgroup 1 has"));
    EXPECT_THAT(e.what(), HasSubstr("holds up to 5 threadgroups at once (five)"));
  }
  TraceStream unlimited(4, limited(0));
  unlimited.begin_launch({"k", {2, 1, 1}, {32, 1, 1}, 0});
  EXPECT_NO_THROW(unlimited.put(0, one_trace(0, 1000)));
  TraceStream refusing(
      4, [](const sim::LaunchHeader&) -> HeldLimit { throw InputError("occupancy refused"); });
  EXPECT_THROW(refusing.begin_launch({"k", {2, 1, 1}, {32, 1, 1}, 0}), InputError);
}

// A translated threadgroup is judged by its own traces times the threadgroups held, plus the
// base's packed traces it reads, held once.
TEST(TraceStreamTest, BoundsTranslatedThreadgroupsWithTheirBaseOnce) {
  const std::vector<sim::SimdgroupTrace> base = two_buffer_loop(0, 0);
  const std::vector<sim::BufferShift> shifts{{1, 4096}};
  TraceStream sizes(4);
  sizes.begin_launch({"k", {2, 1, 1}, {32, 1, 1}, 0});
  sizes.put(0, base);
  ASSERT_TRUE(sizes.put_translated(1, base, shifts, {1, 0, 0}));
  const std::uint64_t shared = sizes.take(0)[0].footprint();  // packed as put() packs it
  const std::uint64_t own = sizes.take(1)[0].footprint();
  ASSERT_GT(own, 0u);
  const auto limited = [](std::uint64_t bytes) {
    return [bytes](const sim::LaunchHeader&) { return HeldLimit{5, bytes, "five"}; };
  };
  TraceStream at_limit(4, limited(shared + 5 * own));
  at_limit.begin_launch({"k", {2, 1, 1}, {32, 1, 1}, 0});
  EXPECT_TRUE(at_limit.put_translated(1, base, shifts, {1, 0, 0}));
  TraceStream below(4, limited(shared + 5 * own - 1));
  below.begin_launch({"k", {2, 1, 1}, {32, 1, 1}, 0});
  try {
    below.put_translated(1, base, shifts, {1, 0, 0});
    FAIL() << "expected TraceLimitExceeded";
  } catch (const sim::TraceLimitExceeded& e) {
    EXPECT_THAT(e.what(), HasSubstr("threadgroup 1 has 0.0 MB of traces and reads"));
    EXPECT_THAT(e.what(), HasSubstr("shared by its translations"));
  }
}

// The random launches of the batching test (several waves on the 2-core test device), some
// reshaped to a 2D grid, replayed whole and streamed by 1-3 producers through windows of 1 to
// 5 threadgroups: every result field, counter and event-sink call agrees.
// Replays `launch` whole and streamed by 1-3 producers through a window of 1 to 5
// threadgroups: every result field, counter and event-sink call agrees.
void expect_streamed_same_as_whole(const sim::LaunchTrace& launch, std::uint64_t seed) {
  const int resident = 1 + static_cast<int>(seed % 4);
  const model::DeviceSpec device = testing::test_device();
  const TimingOptions options{
      .issue_policy = seed % 3 == 0 ? IssuePolicy::kGreedyThenOldest : IssuePolicy::kOldestFirst,
      .counter_window = Cycles(50)};
  testing::RecordingSink whole_sink;
  const TimingResult whole =
      GpuTimingModel(device, options).run(testing::input_of(launch, resident), &whole_sink);

  TraceStream stream(1 + static_cast<std::uint32_t>(seed % 5));
  Feeder feeder(stream, launch, 1 + static_cast<int>(seed % 3), seed);
  LaunchInput input{.stream = &stream, .resident_threadgroups_per_core = resident};
  testing::RecordingSink streamed_sink;
  const TimingResult streamed = GpuTimingModel(device, options).run(input, &streamed_sink);
  feeder.join();
  ASSERT_EQ(streamed, whole) << "seed " << seed;
  ASSERT_TRUE(testing::log_of(streamed_sink) == testing::log_of(whole_sink)) << "seed " << seed;
}

// The random launches of the batching test (several waves on the 2-core test device), some
// reshaped to a 2D grid.
TEST(StreamedReplayTest, SameResultsAsTheWholeTrace) {
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    sim::LaunchTrace launch = testing::random_launch(seed, seed > 30 ? 24 : 10);
    const std::uint32_t groups = launch.threadgroups_per_grid[0];
    if (seed % 2 == 0 && groups % 2 == 0) {
      launch.threadgroups_per_grid = {groups / 2, 2, 1};
      for (sim::SimdgroupTrace& sg : launch.simdgroups) {
        const std::uint32_t linear = sg.threadgroup[0];
        sg.threadgroup = {linear % (groups / 2), linear / (groups / 2), 0};
      }
    }
    expect_streamed_same_as_whole(launch, seed);
  }
}

// Launches of main loops, whose streamed traces are held packed and unpacked as the replay
// advances (packed_trace.h).
TEST(StreamedReplayTest, PackedMainLoopsGiveTheSameResultsAsTheWholeTrace) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    expect_streamed_same_as_whole(testing::looped_launch(seed, 12), seed);
  }
}

// Threadgroups put as translations of threadgroup 0 (the replay reads its base's trace in
// place, each access moved by its buffer's shift) replay as the traces the engine's
// translation builds: the looped launches' threadgroup 0 moved by pseudo-random shifts, some
// wrapping around 2^32.
TEST(StreamedReplayTest, TranslatedThreadgroupsReplayAsTheirTranslatedTraces) {
  int replayed = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const sim::LaunchTrace looped = testing::looped_launch(seed, 2);
    std::vector<sim::SimdgroupTrace> base;
    for (const sim::SimdgroupTrace& sg : looped.simdgroups) {
      if (sg.threadgroup[0] == 0) base.push_back(sg);
    }
    const std::uint32_t groups = 2 + static_cast<std::uint32_t>(seed % 7);
    testing::Random random(seed);
    std::vector<sim::BufferShifts> shifts(groups);
    sim::LaunchTrace whole = testing::launch_of(groups, looped.threads_per_threadgroup[0]);
    for (std::uint32_t tg = 0; tg < groups; ++tg) {
      for (std::uint16_t buffer = 0; buffer < 8; ++buffer) {
        const std::uint32_t shift = tg == 0 ? 0 : random.below(1u << 20) * 4 + (tg << 30);
        ASSERT_TRUE(shifts[tg].set(buffer, shift));
      }
      for (sim::SimdgroupTrace& sg : sim::translate_traces(base, shifts[tg], {tg, 0, 0})) {
        whole.simdgroups.push_back(std::move(sg));
      }
    }
    const model::DeviceSpec device = testing::test_device();
    const int resident = 1 + static_cast<int>(seed % 3);
    const TimingResult expected = GpuTimingModel(device).run(testing::input_of(whole, resident));
    TraceStream stream(groups);
    stream.begin_launch(header_of(whole));
    stream.put(0, base);
    bool packs = true;
    for (std::uint32_t tg = 1; tg < groups && packs; ++tg) {
      packs = stream.put_translated(tg, base, shifts[tg].entries(), {tg, 0, 0});
    }
    if (!packs) continue;  // the engine would put the translated traces themselves
    const TimingResult streamed = GpuTimingModel(device).run(
        LaunchInput{.stream = &stream, .resident_threadgroups_per_core = resident});
    ASSERT_EQ(streamed, expected) << "seed " << seed;
    ++replayed;
  }
  EXPECT_GT(replayed, 20);
}

TEST(StreamedReplayTest, AStreamedLaunchAfterAWholeOneSeesTheWarmDevice) {
  const sim::LaunchTrace first = testing::random_launch(7, 24);
  const sim::LaunchTrace second = testing::random_launch(8, 24);
  const model::DeviceSpec device = testing::test_device();
  const std::vector<LaunchInput> whole{testing::input_of(first, 2), testing::input_of(second, 3)};
  const TimingResult expected = GpuTimingModel(device).run(whole);
  TraceStream stream(2);
  Feeder feeder(stream, second, 2, 8);
  const std::vector<LaunchInput> mixed{
      testing::input_of(first, 2),
      LaunchInput{.stream = &stream, .resident_threadgroups_per_core = 3}};
  EXPECT_EQ(GpuTimingModel(device).run(mixed), expected);
}

TEST(StreamedReplayTest, ABadStreamedTraceIsRefusedAsTheWholeOneIsAndReleasesTheEngine) {
  sim::LaunchTrace launch = testing::random_launch(11, 24);
  ASSERT_GT(launch.threadgroups_per_grid[0], 3u);
  for (sim::SimdgroupTrace& sg : launch.simdgroups) {
    if (sg.threadgroup[0] == 3 && !sg.ops.empty()) {
      sg.ops.back().dep = static_cast<std::int32_t>(sg.ops.size());  // not an earlier op
      break;
    }
  }
  const model::DeviceSpec device = testing::test_device();
  std::string whole_error;
  try {
    (void)GpuTimingModel(device).run(testing::input_of(launch, 1));
  } catch (const InputError& e) {
    whole_error = e.what();
  }
  ASSERT_THAT(whole_error, HasSubstr("threadgroup (3,0,0)"));
  TraceStream stream(1);
  Feeder feeder(stream, launch, 2, 11);
  try {
    (void)GpuTimingModel(device).run(
        LaunchInput{.stream = &stream, .resident_threadgroups_per_core = 1});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), whole_error);
  }
  feeder.join();  // returns: the failed run aborted the stream
}

TEST(StreamedReplayTest, ATraceStreamedUnderAnotherThreadgroupIsRefused) {
  const model::DeviceSpec device = testing::test_device();
  TraceStream stream(2);
  std::thread producer([&] {
    try {
      stream.begin_launch({"k", {2, 1, 1}, {32, 1, 1}, 0});
      stream.put(0, one_trace(1, 3));  // says it is threadgroup 1
      stream.put(1, one_trace(1, 3));
    } catch (const TraceStreamAborted&) {
    }
  });
  EXPECT_THROW(
      {
        try {
          (void)GpuTimingModel(device).run(
              LaunchInput{.stream = &stream, .resident_threadgroups_per_core = 1});
        } catch (const InputError& e) {
          EXPECT_THAT(e.what(), HasSubstr("streamed as threadgroup 0"));
          throw;
        }
      },
      InputError);
  producer.join();
}

TEST(StreamedReplayTest, AnAbortedEngineStopsTheReplay) {
  const model::DeviceSpec device = testing::test_device();
  TraceStream stream(2);
  std::thread producer([&] {
    stream.begin_launch({"k", {4, 1, 1}, {32, 1, 1}, 0});
    stream.put(0, one_trace(0, 3));
    stream.abort();  // the engine failed on threadgroup 1
  });
  EXPECT_THROW((void)GpuTimingModel(device).run(
                   LaunchInput{.stream = &stream, .resident_threadgroups_per_core = 1}),
               TraceStreamAborted);
  producer.join();
}

}  // namespace
}  // namespace marlin::timing
