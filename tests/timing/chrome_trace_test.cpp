// ChromeTraceSink: the JSON parses; threadgroup lifetimes, simdgroup parents and stall states
// nest on their tracks; timestamps match the cycles of the run; counters are present; the event
// bound and the sampling options are honoured and reported.
#include "model/timing/chrome_trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "model/common/input_error.h"
#include "model/timing/gpu_timing_model.h"
#include "tests/timing/timing_fixtures.h"

namespace marlin::timing {
namespace {

using sim::AluKind;
using sim::OpClass;
using testing::add_memory_op;
using testing::alu_op;
using testing::input_of;
using testing::RecordingSink;
using testing::simple_op;

constexpr int kSimdgroupTidBase = 10000;  // the documented tid of simdgroup slot 0

// A gx x gy grid of threadgroups of `sgs` simdgroups. Simdgroup i: (4 - i) FP32 FMAs, a
// 128-byte DRAM load, two FMAs on the load, a threadgroup barrier, one FP16 FMA. Unequal work
// before the barrier makes barrier waits; the loads make memory waits and DRAM traffic.
sim::LaunchTrace grid_launch(std::uint32_t gx, std::uint32_t gy, std::uint32_t sgs,
                             const std::string& kernel) {
  sim::LaunchTrace launch = testing::launch_of(gx * gy, 32 * sgs);
  launch.kernel = kernel;
  launch.threadgroups_per_grid = {gx, gy, 1};
  for (std::uint32_t y = 0; y < gy; ++y) {
    for (std::uint32_t x = 0; x < gx; ++x) {
      const std::uint32_t tg = x + gx * y;
      for (std::uint32_t i = 0; i < sgs; ++i) {
        sim::SimdgroupTrace sg;
        sg.threadgroup = {x, y, 0};
        sg.simdgroup = i;
        sg.ops.push_back(alu_op(AluKind::kFp32Fma, static_cast<std::uint16_t>(4 - i)));
        add_memory_op(sg, OpClass::kDeviceLoad, 0, tg * 1024 + i * 128, 4, 4);
        sg.ops.push_back(alu_op(AluKind::kFp32Fma, 2, /*dep=*/1));
        sg.ops.push_back(simple_op(OpClass::kThreadgroupBarrier));
        sg.ops.push_back(alu_op(AluKind::kFp16Fma, 1));
        launch.simdgroups.push_back(std::move(sg));
      }
    }
  }
  return launch;
}

struct Slice {
  int pid = 0;
  int tid = 0;
  std::string name;
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  nlohmann::json args;
};

std::int64_t to_ns(const nlohmann::json& micros) {
  return std::llround(micros.get<double>() * 1000.0);
}

// The parsed file, split by phase.
struct ParsedTrace {
  nlohmann::json document;
  std::vector<nlohmann::json> metadata;
  std::vector<Slice> slices;
  std::vector<nlohmann::json> counters;
};

ParsedTrace parse(const ChromeTraceSink& sink) {
  std::ostringstream out;
  sink.write(out);
  ParsedTrace parsed;
  parsed.document = nlohmann::json::parse(out.str());  // throws if not valid JSON
  for (const nlohmann::json& e : parsed.document.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "M") {
      parsed.metadata.push_back(e);
    } else if (ph == "X") {
      const std::int64_t begin = to_ns(e.at("ts"));
      parsed.slices.push_back({e.at("pid"), e.at("tid"), e.at("name"), begin,
                               begin + to_ns(e.at("dur")), e.value("args", nlohmann::json())});
    } else {
      EXPECT_EQ(ph, "C");
      parsed.counters.push_back(e);
    }
  }
  return parsed;
}

bool is_simdgroup_track(const Slice& s) { return s.tid >= kSimdgroupTidBase; }
bool is_parent(const Slice& s) { return s.name.rfind("tg (", 0) == 0; }

// Checks the nesting rules of every track; returns the number of violations (0 when nested).
// Threadgroup tracks: lifetimes do not overlap. Simdgroup tracks: parents do not overlap, states
// do not overlap, every state lies in a parent, and the states of a parent cover it exactly;
// every parent lies in a threadgroup lifetime on its core's slot track (slot = (tid - base) /
// simdgroups per threadgroup).
int nesting_violations(const ParsedTrace& t, int sgs) {
  int violations = 0;
  std::map<std::pair<int, int>, std::vector<Slice>> tracks;
  for (const Slice& s : t.slices) tracks[{s.pid, s.tid}].push_back(s);
  const auto overlaps = [](std::vector<Slice> v) {
    std::sort(v.begin(), v.end(),
              [](const Slice& a, const Slice& b) { return a.begin_ns < b.begin_ns; });
    int bad = 0;
    for (std::size_t i = 1; i < v.size(); ++i) bad += v[i].begin_ns < v[i - 1].end_ns ? 1 : 0;
    return bad;
  };
  for (const auto& [key, slices] : tracks) {
    if (key.second < kSimdgroupTidBase) {
      violations += overlaps(slices);
      continue;
    }
    std::vector<Slice> parents;
    std::vector<Slice> states;
    for (const Slice& s : slices) (is_parent(s) ? parents : states).push_back(s);
    violations += overlaps(parents) + overlaps(states);
    for (const Slice& p : parents) {
      std::int64_t covered = 0;
      for (const Slice& s : states) {
        if (s.begin_ns >= p.begin_ns && s.end_ns <= p.end_ns) covered += s.end_ns - s.begin_ns;
      }
      violations += covered == p.end_ns - p.begin_ns ? 0 : 1;
      const int tg_tid = (key.second - kSimdgroupTidBase) / sgs + 1;
      const auto lifetimes = tracks.find({key.first, tg_tid});
      const bool inside =
          lifetimes != tracks.end() &&
          std::any_of(lifetimes->second.begin(), lifetimes->second.end(), [&](const Slice& l) {
            return l.begin_ns <= p.begin_ns && p.end_ns <= l.end_ns;
          });
      violations += inside ? 0 : 1;
    }
    for (const Slice& s : states) {
      const bool inside = std::any_of(parents.begin(), parents.end(), [&](const Slice& p) {
        return p.begin_ns <= s.begin_ns && s.end_ns <= p.end_ns;
      });
      violations += inside ? 0 : 1;
    }
  }
  return violations;
}

class ChromeTraceTest : public ::testing::Test {
 protected:
  // 3 x 2 threadgroups of 2 simdgroups, 2 resident per core on the 2-core, 1 GHz test device:
  // 1 cycle = 1 ns, so every timestamp is exact.
  model::DeviceSpec device_ = testing::test_device();
  sim::LaunchTrace launch_ = grid_launch(3, 2, 2, "synthetic_grid");
  LaunchInput input_ = input_of(launch_, /*resident=*/2);
};

TEST_F(ChromeTraceTest, WholeLaunchParsesNestsAndMatchesTheRun) {
  RecordingSink recording;
  const TimingResult expected = GpuTimingModel(device_).run(input_, &recording);
  ChromeTraceSink sink(device_.gpu, std::span<const LaunchInput>(&input_, 1));
  const TimingResult r = GpuTimingModel(device_).run(input_, &sink);
  ASSERT_EQ(r, expected);  // the sink does not change the run
  const ParsedTrace t = parse(sink);

  // Metadata: GPU (name, sort, launches track name and sort) = 4; per core: name, sort, and
  // (name, sort) for 2 threadgroup slots and 2 x 2 = 4 simdgroup slots: 2 + 2*2 + 2*4 = 14.
  EXPECT_EQ(t.metadata.size(), 4u + 2u * 14u);
  EXPECT_EQ(sink.summary().metadata_events, 4 + 2 * 14);
  const auto& events = t.document.at("traceEvents");
  EXPECT_EQ(static_cast<std::int64_t>(events.size()), sink.summary().events);
  const nlohmann::json& other = t.document.at("otherData");
  EXPECT_EQ(other.at("events").get<std::int64_t>(), sink.summary().events);
  EXPECT_FALSE(other.at("truncated").get<bool>());
  EXPECT_EQ(other.at("dropped_events").get<std::int64_t>(), 0);
  EXPECT_EQ(other.at("omitted_events").get<std::int64_t>(), 0);
  EXPECT_EQ(nesting_violations(t, 2), 0);

  // One launch slice on the GPU process (pid cores + 1 = 3) spanning the run's cycles.
  std::vector<Slice> launches;
  std::vector<Slice> lifetimes;
  for (const Slice& s : t.slices) {
    if (s.pid == 3) launches.push_back(s);
    if (s.pid != 3 && !is_simdgroup_track(s)) lifetimes.push_back(s);
  }
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].name, "synthetic_grid");
  EXPECT_EQ(launches[0].begin_ns, 0);
  EXPECT_EQ(launches[0].end_ns, r.total_cycles.count());  // 1 GHz: ns = cycles

  // Every threadgroup the model reported, on (core + 1, slot + 1), named by its coordinates.
  ASSERT_EQ(lifetimes.size(), recording.threadgroups.size());
  for (const testing::ThreadgroupRecord& g : recording.threadgroups) {
    const std::string name = "tg (" + std::to_string(g.threadgroup % 3) + "," +
                             std::to_string(g.threadgroup / 3) + ",0) synthetic_grid";
    const auto match = std::find_if(lifetimes.begin(), lifetimes.end(), [&](const Slice& s) {
      return s.pid == g.core + 1 && s.tid == g.slot + 1 && s.name == name;
    });
    ASSERT_NE(match, lifetimes.end()) << name;
    EXPECT_EQ(match->begin_ns, g.begin);
    EXPECT_EQ(match->end_ns, g.end);
    EXPECT_EQ(match->args.at("begin_cycle").get<std::int64_t>(), g.begin);
    EXPECT_EQ(match->args.at("end_cycle").get<std::int64_t>(), g.end);
  }

  // The states carry the same cycles per class as the model's events, and one parent per
  // simdgroup of each threadgroup (6 threadgroups x 2).
  std::map<std::string, std::int64_t> traced;
  std::map<std::string, std::int64_t> reported;
  int parents = 0;
  for (const Slice& s : t.slices) {
    if (!is_simdgroup_track(s)) continue;
    if (is_parent(s)) {
      ++parents;
    } else {
      traced[s.name] += s.end_ns - s.begin_ns;
    }
  }
  for (const testing::StateInterval& s : recording.states) {
    reported[std::string(stall_class_name(s.state))] += s.end - s.begin;
  }
  EXPECT_EQ(parents, 6 * 2);
  EXPECT_EQ(traced, reported);
  EXPECT_GT(traced["barrier_wait"], 0);
  EXPECT_GT(traced["memory_wait"], 0);
}

TEST_F(ChromeTraceTest, CountersTrackResidencyAndIntegrateToTheDramBytes) {
  ChromeTraceSink sink(device_.gpu, std::span<const LaunchInput>(&input_, 1));
  const TimingResult r = GpuTimingModel(device_).run(input_, &sink);
  const ParsedTrace t = parse(sink);
  std::map<int, std::vector<std::pair<std::int64_t, std::int64_t>>> resident;
  double dram_bytes = 0;
  std::int64_t previous_ns = 0;
  double previous_rate = 0;
  int dram_samples = 0;
  for (const nlohmann::json& c : t.counters) {
    const std::int64_t ns = to_ns(c.at("ts"));
    if (c.at("name") == "resident simdgroups") {
      resident[c.at("pid").get<int>()].push_back({ns, c.at("args").at("simdgroups")});
    } else {
      ASSERT_EQ(c.at("name"), "DRAM bandwidth");
      // GB/s x ns = bytes: integrate the step function sample by sample.
      dram_bytes += previous_rate * static_cast<double>(ns - previous_ns);
      previous_ns = ns;
      previous_rate = c.at("args").at("GB/s").get<double>();
      ++dram_samples;
    }
  }
  ASSERT_EQ(resident.size(), 2u);  // both cores
  for (const auto& [pid, samples] : resident) {
    for (const auto& [ns, value] : samples) {
      EXPECT_GE(value, 0);
      EXPECT_LE(value, 2 * 2);  // 2 resident threadgroups of 2 simdgroups
    }
    EXPECT_EQ(samples.front().second, 4) << "both slots fill at the first dispatch";
    EXPECT_EQ(samples.back().second, 0) << "the core drains at the end";
  }
  EXPECT_GE(dram_samples, 2);
  EXPECT_EQ(previous_rate, 0.0);  // the last sample drops to 0
  // 6 threadgroups x 2 simdgroups x one 128-byte line each, read from DRAM once.
  EXPECT_EQ(r.launches[0].dram_bytes, 6 * 2 * 128);
  EXPECT_NEAR(dram_bytes, static_cast<double>(r.launches[0].dram_bytes), 1e-6);
}

TEST_F(ChromeTraceTest, EventBoundCutsInSimulationOrderAndSaysSo) {
  ChromeTraceSink full(device_.gpu, std::span<const LaunchInput>(&input_, 1));
  (void)GpuTimingModel(device_).run(input_, &full);
  const std::int64_t all = full.summary().events;
  // Room for the 32 metadata events, the launch, the first DRAM sample and 20 more.
  const std::int64_t bound = 32 + 1 + 1 + 20;
  ASSERT_LT(bound, all);
  ChromeTraceSink sink(device_.gpu, std::span<const LaunchInput>(&input_, 1),
                       {.max_events = bound});
  (void)GpuTimingModel(device_).run(input_, &sink);
  const ParsedTrace t = parse(sink);
  const ChromeTraceSummary& s = sink.summary();
  EXPECT_LE(static_cast<std::int64_t>(t.document.at("traceEvents").size()), bound);
  EXPECT_EQ(static_cast<std::int64_t>(t.document.at("traceEvents").size()), s.events);
  EXPECT_TRUE(s.truncated);
  // Nothing is lost without being counted (track names are written only for tracks with
  // events, so compare without the metadata).
  EXPECT_EQ(s.events - s.metadata_events + s.dropped_events, all - full.summary().metadata_events);
  EXPECT_LT(s.metadata_events, full.summary().metadata_events);
  const nlohmann::json& other = t.document.at("otherData");
  EXPECT_TRUE(other.at("truncated").get<bool>());
  EXPECT_EQ(other.at("dropped_events").get<std::int64_t>(), s.dropped_events);
  EXPECT_EQ(other.at("max_events").get<std::int64_t>(), bound);
  EXPECT_EQ(other.at("truncated_at_cycle").get<std::int64_t>(), s.truncated_at.count());
  EXPECT_EQ(nesting_violations(t, 2), 0);
  // Kept threadgroups and counter samples all precede the cut (1 GHz: ns = cycles).
  for (const Slice& slice : t.slices) {
    if (slice.pid != 3 && !is_simdgroup_track(slice)) {
      EXPECT_LE(slice.end_ns, s.truncated_at.count());
    }
  }
  for (const nlohmann::json& c : t.counters) EXPECT_LE(to_ns(c.at("ts")), s.truncated_at.count());
}

TEST_F(ChromeTraceTest, SamplingKeepsTheFirstCoresAndEveryKthThreadgroup) {
  ChromeTraceSink full(device_.gpu, std::span<const LaunchInput>(&input_, 1));
  (void)GpuTimingModel(device_).run(input_, &full);

  ChromeTraceSink one_core(device_.gpu, std::span<const LaunchInput>(&input_, 1), {.max_cores = 1});
  (void)GpuTimingModel(device_).run(input_, &one_core);
  const ParsedTrace a = parse(one_core);
  for (const Slice& s : a.slices) EXPECT_NE(s.pid, 2) << "core 1 is not traced";
  for (const nlohmann::json& c : a.counters) EXPECT_NE(c.at("pid"), 2);
  EXPECT_EQ(a.document.at("otherData").at("cores_traced"), 1);
  EXPECT_FALSE(one_core.summary().truncated);
  EXPECT_GT(one_core.summary().omitted_events, 0);
  // Metadata: 4 + 14 for the one core.
  EXPECT_EQ(a.metadata.size(), 18u);
  EXPECT_EQ(nesting_violations(a, 2), 0);

  ChromeTraceSink every_other(device_.gpu, std::span<const LaunchInput>(&input_, 1),
                              {.threadgroup_stride = 2});
  (void)GpuTimingModel(device_).run(input_, &every_other);
  const ParsedTrace b = parse(every_other);
  int lifetimes = 0;
  std::vector<std::string> parents;
  for (const Slice& s : b.slices) {
    if (s.pid != 3 && !is_simdgroup_track(s)) ++lifetimes;
    if (is_simdgroup_track(s) && is_parent(s)) parents.push_back(s.name);
  }
  EXPECT_EQ(lifetimes, 6);  // every lifetime is kept
  // Threadgroups 0, 2, 4 = (0,0), (2,0), (1,1), two simdgroups each.
  std::sort(parents.begin(), parents.end());
  EXPECT_EQ(parents,
            (std::vector<std::string>{"tg (0,0,0) sg 0", "tg (0,0,0) sg 1", "tg (1,1,0) sg 0",
                                      "tg (1,1,0) sg 1", "tg (2,0,0) sg 0", "tg (2,0,0) sg 1"}));
  EXPECT_EQ(every_other.summary().events - every_other.summary().metadata_events +
                every_other.summary().omitted_events,
            full.summary().events - full.summary().metadata_events);
  EXPECT_EQ(b.document.at("otherData").at("threadgroup_stride"), 2);
  EXPECT_EQ(nesting_violations(b, 2), 0);
}

TEST_F(ChromeTraceTest, LaunchSequenceWithDifferentSimdgroupCounts) {
  device_.dispatch.dispatch_overhead_s = 20e-9;  // 20 cycles at 1 GHz before each launch
  const sim::LaunchTrace second = grid_launch(4, 1, 3, "three_simdgroups");
  const std::vector<LaunchInput> inputs = {input_, input_of(second, /*resident=*/1)};
  ChromeTraceSink sink(device_.gpu, inputs);
  const TimingResult r = GpuTimingModel(device_).run(inputs, &sink);
  const ParsedTrace t = parse(sink);
  std::vector<Slice> launches;
  for (const Slice& s : t.slices) {
    if (s.pid == 3) launches.push_back(s);
  }
  ASSERT_EQ(launches.size(), 2u);
  std::sort(launches.begin(), launches.end(),
            [](const Slice& a, const Slice& b) { return a.begin_ns < b.begin_ns; });
  EXPECT_EQ(launches[0].end_ns, r.launches[0].cycles.count());
  EXPECT_EQ(launches[1].begin_ns, r.launches[1].begin.count());
  EXPECT_EQ(launches[1].end_ns, r.total_cycles.count());
  // Second launch: 3 simdgroups per threadgroup, so simdgroup slot k belongs to slot k / 3; the
  // first launch's tracks use k / 2. Check each launch's parents against its own rule.
  ParsedTrace first = t;
  ParsedTrace later = t;
  const auto in_second = [&](const Slice& s) { return s.begin_ns >= r.launches[1].begin.count(); };
  std::erase_if(first.slices, in_second);
  std::erase_if(later.slices, [&](const Slice& s) { return !in_second(s); });
  EXPECT_EQ(nesting_violations(first, 2), 0);
  EXPECT_EQ(nesting_violations(later, 3), 0);
  int second_parents = 0;
  for (const Slice& s : later.slices) second_parents += is_parent(s) && is_simdgroup_track(s);
  EXPECT_EQ(second_parents, 4 * 3);
}

TEST(ChromeTraceOptionsTest, RejectsBadOptions) {
  const model::DeviceSpec device = testing::test_device();
  const sim::LaunchTrace launch = grid_launch(2, 1, 2, "k");
  const LaunchInput input = input_of(launch, 2);
  const std::span<const LaunchInput> one(&input, 1);
  EXPECT_THROW(ChromeTraceSink(device.gpu, one, {.max_events = 0}), InputError);
  EXPECT_THROW(ChromeTraceSink(device.gpu, one, {.max_cores = -1}), InputError);
  EXPECT_THROW(ChromeTraceSink(device.gpu, one, {.threadgroup_stride = 0}), InputError);
  // 32 metadata + 1 launch + 1 DRAM sample = 34 events are always written.
  EXPECT_THROW(ChromeTraceSink(device.gpu, one, {.max_events = 33}), InputError);
  EXPECT_NO_THROW(ChromeTraceSink(device.gpu, one, {.max_events = 34}));
}

TEST(ChromeTraceTimestampTest, NanosecondsFromTheDeviceClock) {
  model::DeviceSpec device = testing::test_device();
  device.gpu.clock_hz = 1.578e9;
  const sim::LaunchTrace launch = grid_launch(1, 1, 1, "k");
  const LaunchInput input = input_of(launch, 1);
  const ChromeTraceSink sink(device.gpu, std::span<const LaunchInput>(&input, 1));
  // 15,780 cycles at 1.578 GHz = 10 us; 1 cycle = 0.634 ns -> 1 ns; 789 cycles = 500 ns.
  EXPECT_EQ(sink.nanoseconds(Cycles(15780)), 10000);
  EXPECT_EQ(sink.nanoseconds(Cycles(1)), 1);
  EXPECT_EQ(sink.nanoseconds(Cycles(789)), 500);
}

}  // namespace
}  // namespace marlin::timing

namespace marlin::timing {
namespace {

// The DRAM-bound stream of memory_timing_test (one simdgroup, 64 cold lines, DRAM 32 B/cycle =
// 4 cycles a line, latency 100; the run ends at 356) with a 100-cycle counter window.
// Transfers: line k in [4(k - 1), 4k). Window [0, 100): lines 1-25 = 3,200 B; [100, 200):
// lines 26-50 = 3,200 B; [200, 300): lines 51-64 = 1,792 B; [300, 356): nothing.
// Boundary 100 is left out (same bytes on both sides); 200 is sent (6,400 B before it); the
// partial window starts at 300 (8,192 B before it, rate 0); the last sample is the end, 356.
TEST(DramCounterTest, SampledOverFixedWindows) {
  sim::LaunchTrace launch = testing::launch_of(1, 32);
  sim::SimdgroupTrace& sg = testing::add_simdgroup(launch, 0, 0);
  add_memory_op(sg, OpClass::kDeviceLoad, 0, 0, 128, 4);
  add_memory_op(sg, OpClass::kDeviceLoad, 1, 0, 128, 4);
  const LaunchInput input = input_of(launch);
  const GpuTimingModel model(testing::test_device(), TimingOptions{.issue_policy = std::nullopt,
                                                                   .counter_window = Cycles(100)});
  RecordingSink recording;
  ASSERT_EQ(model.run(input, &recording).total_cycles, Cycles(356));
  std::vector<std::pair<std::int64_t, std::int64_t>> dram;
  for (const testing::CounterSample& c : recording.counters) {
    if (c.counter == TimingCounter::kDramBytes) dram.push_back({c.at, c.value});
  }
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected = {
      {200, 6400}, {300, 8192}, {356, 8192}};
  EXPECT_EQ(dram, expected);

  // In the file (1 GHz: 1 cycle = 1 ns): 6,400 B / 200 ns = 32 GB/s from 0; 1,792 B / 100 ns =
  // 17.92 GB/s from 0.2 us; 0 from 0.3 us; the last sample, at 0.356 us, drops to 0.
  ChromeTraceSink sink(testing::test_device().gpu, std::span<const LaunchInput>(&input, 1));
  (void)model.run(input, &sink);
  std::vector<std::pair<std::int64_t, double>> samples;
  for (const nlohmann::json& c : parse(sink).counters) {
    if (c.at("name") == "DRAM bandwidth") {
      samples.push_back({to_ns(c.at("ts")), c.at("args").at("GB/s").get<double>()});
    }
  }
  ASSERT_EQ(samples.size(), 4U);
  EXPECT_EQ(samples[0], (std::pair<std::int64_t, double>{0, 32.0}));
  EXPECT_EQ(samples[1].first, 200);
  EXPECT_DOUBLE_EQ(samples[1].second, 17.92);
  EXPECT_EQ(samples[2], (std::pair<std::int64_t, double>{300, 0.0}));
  EXPECT_EQ(samples[3], (std::pair<std::int64_t, double>{356, 0.0}));
}

TEST(DramCounterTest, WindowMustBePositive) {
  EXPECT_THROW(GpuTimingModel(testing::test_device(), TimingOptions{.issue_policy = std::nullopt,
                                                                    .counter_window = Cycles(0)}),
               InputError);
}

}  // namespace
}  // namespace marlin::timing
