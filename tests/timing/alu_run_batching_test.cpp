// ALU runs issued in one step (TimingOptions::batch_alu_runs) give exactly the results of
// issuing them one scheduler step at a time: a differential test on pseudo-random launches
// (ALU runs of every kind, threadgroup and device loads, stores, barriers, matrix multiplies),
// comparing every result field, every counter and every event-sink call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "model/timing/gpu_timing_model.h"
#include "tests/timing/timing_fixtures.h"

namespace marlin::timing {
namespace {

using sim::OpClass;

// A small deterministic generator (64-bit LCG), so every run builds the same launches.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed * 2862933555777941757ULL + 3037000493ULL) {}
  std::uint32_t below(std::uint32_t n) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>((state_ >> 33) % n);
  }

 private:
  std::uint64_t state_;
};

// One simdgroup's ops: ALU runs (count 1..60) mixed with memory ops, matrix multiplies and
// simdgroup barriers, plus `barriers` threadgroup barriers at pseudo-random places. ALU ops
// depend on the newest earlier load, as the engine's rule says. With `lead_with_load`, the
// first op is a threadgroup load (a newly dispatched simdgroup then competes for the
// threadgroup-memory pipe at once).
void fill_simdgroup(sim::SimdgroupTrace& sg, int barriers, Random& random, std::uint32_t tg,
                    bool lead_with_load) {
  const int ops = 4 + static_cast<int>(random.below(20));
  std::int32_t last_load = -1;
  int barriers_left = barriers;
  if (lead_with_load) {
    testing::add_memory_op(sg, OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId, 0, 4, 4);
    last_load = 0;
  }
  for (int i = 0; i < ops || barriers_left > 0; ++i) {
    const auto index = static_cast<std::int32_t>(sg.ops.size());
    const std::uint32_t what = random.below(16);
    if (barriers_left > 0 && (i >= ops || what == 0)) {
      sg.ops.push_back(testing::simple_op(OpClass::kThreadgroupBarrier, last_load));
      --barriers_left;
    } else if (what < 8) {
      const auto kind = static_cast<sim::AluKind>(random.below(13));
      const auto count = static_cast<std::uint16_t>(1 + random.below(60));
      sg.ops.push_back(testing::alu_op(kind, count, last_load));
    } else if (what < 10) {
      testing::add_memory_op(sg, OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId,
                             4 * random.below(64), 4 * (1 + random.below(32)), 4);
      last_load = index;
    } else if (what < 12) {
      testing::add_memory_op(sg, OpClass::kDeviceLoad, static_cast<std::uint16_t>(random.below(3)),
                             128 * random.below(64) + 4096 * tg, 4 * (1 + random.below(40)), 4);
      last_load = index;
    } else if (what < 13) {
      testing::add_memory_op(sg, OpClass::kDeviceStore, 3, 4096 * tg, 4, 4, last_load);
    } else if (what < 14) {
      sg.ops.push_back(testing::simple_op(OpClass::kMatrixMultiply, -1));
    } else if (what < 15) {
      sg.ops.push_back(testing::simple_op(OpClass::kSimdBarrier, last_load));
    } else {
      testing::add_memory_op(sg, OpClass::kThreadgroupStore, sim::kThreadgroupBufferId, 0, 4, 4,
                             last_load);
    }
  }
}

// Up to `max_groups` threadgroups of 1 to 8 simdgroups; in a third of the launches some
// simdgroups start with a threadgroup load.
sim::LaunchTrace random_launch(std::uint64_t seed, std::uint32_t max_groups) {
  Random random(seed);
  const std::uint32_t groups = 1 + random.below(max_groups);
  const std::uint32_t simdgroups = 1 + random.below(8);
  const bool loads_first = random.below(3) == 0;
  sim::LaunchTrace launch = testing::launch_of(groups, 32 * simdgroups);
  for (std::uint32_t tg = 0; tg < groups; ++tg) {
    const int barriers = static_cast<int>(random.below(3));
    for (std::uint32_t s = 0; s < simdgroups; ++s) {
      if (random.below(8) == 0) continue;  // a simdgroup without a trace
      const bool lead_with_load = loads_first && random.below(2) == 0;
      fill_simdgroup(testing::add_simdgroup(launch, tg, s), barriers, random, tg, lead_with_load);
    }
  }
  return launch;
}

// Everything a sink saw, in a canonical order (calls for different slots may interleave
// differently; per slot they are in time order).
struct SinkLog {
  std::vector<std::tuple<int, int, int, std::int64_t, std::int64_t>> states;
  std::vector<std::tuple<int, int, int, std::uint32_t, std::int64_t, std::int64_t>> threadgroups;
  std::vector<std::tuple<int, int, std::int64_t, std::int64_t>> counters;
  friend bool operator==(const SinkLog&, const SinkLog&) = default;
};

SinkLog log_of(const testing::RecordingSink& sink) {
  SinkLog log;
  for (const testing::StateInterval& s : sink.states) {
    log.states.emplace_back(s.core, s.slot, static_cast<int>(s.state), s.begin, s.end);
  }
  std::stable_sort(log.states.begin(), log.states.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  for (const testing::ThreadgroupRecord& t : sink.threadgroups) {
    log.threadgroups.emplace_back(t.launch, t.core, t.slot, t.threadgroup, t.begin, t.end);
  }
  for (const testing::CounterSample& c : sink.counters) {
    log.counters.emplace_back(static_cast<int>(c.counter), c.core, c.at, c.value);
  }
  return log;
}

// Seeds 1-60: up to 10 threadgroups, 1-3 resident per core. Seeds 61-300: up to 24, 1-4
// resident (several waves on the 2-core device; up to 8 simdgroups per scheduler, of
// different ages, some held at barriers while others run).
TEST(AluRunBatching, SameResultsAsOneInstructionPerStep) {
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const bool dense = seed > 60;
    const sim::LaunchTrace launch = random_launch(seed, dense ? 24 : 10);
    const int resident = 1 + static_cast<int>(seed % (dense ? 4 : 3));
    const LaunchInput input = testing::input_of(launch, resident);
    const IssuePolicy policy =
        seed % 2 == 0 ? IssuePolicy::kOldestFirst : IssuePolicy::kGreedyThenOldest;
    model::DeviceSpec device = testing::test_device();
    if (seed % 4 == 1) device.memory.l1_bytes_per_cycle = 64;  // exercise the ports too
    if (seed % 4 == 3) device.memory.l2_bytes_per_cycle = 96;
    TimingOptions stepwise{.issue_policy = policy, .counter_window = Cycles(50)};
    stepwise.batch_alu_runs = false;
    TimingOptions batched = stepwise;
    batched.batch_alu_runs = true;
    testing::RecordingSink step_sink;
    testing::RecordingSink batch_sink;
    const TimingResult a = GpuTimingModel(device, stepwise).run(input, &step_sink);
    const TimingResult b = GpuTimingModel(device, batched).run(input, &batch_sink);
    ASSERT_EQ(a, b) << "seed " << seed;
    ASSERT_TRUE(log_of(step_sink) == log_of(batch_sink)) << "seed " << seed;
    // Without a sink the breakdown is added in bulk: still the same.
    EXPECT_EQ(GpuTimingModel(device, batched).run(input), a) << "seed " << seed;
    ++compared;
  }
  EXPECT_EQ(compared, 300);
}

// A lone simdgroup's run is issued in one step: 40 FP32 FMAs (throughput 2, latency 6) take
// 39 x 2 + 6 = 84 cycles, 40 issuing and 39 x 1 pipe-busy cycles before the last latency.
TEST(AluRunBatching, LoneRunKeepsItsCycleCount) {
  sim::LaunchTrace launch = testing::launch_of(1, 32);
  testing::add_simdgroup(launch, 0, 0).ops = {testing::alu_op(sim::AluKind::kFp32Fma, 40)};
  testing::RecordingSink sink;
  const TimingResult r =
      GpuTimingModel(testing::test_device()).run(testing::input_of(launch), &sink);
  EXPECT_EQ(r.total_cycles, Cycles(84));
  EXPECT_EQ(r.breakdown[StallClass::kIssuing], 40);
  EXPECT_EQ(r.breakdown[StallClass::kAluBusy], 39 + 5);  // between issues, then the latency
  EXPECT_EQ(r.instructions, 40);
  const std::vector<testing::StateInterval> states = sink.states_of(0, 0);
  ASSERT_EQ(states.size(), 2u * 39 + 2);  // issuing / busy alternate, then the final wait
  EXPECT_EQ(states[1], (testing::StateInterval{0, 0, StallClass::kAluBusy, 1, 2}));
  EXPECT_EQ(states.back(), (testing::StateInterval{0, 0, StallClass::kAluBusy, 79, 84}));
}

}  // namespace
}  // namespace marlin::timing
