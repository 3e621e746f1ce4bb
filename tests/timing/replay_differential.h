// Differential tests of the replay: pseudo-random launches (ALU runs of every kind,
// threadgroup and device loads, stores, barriers and matrix multiplies, deterministic per
// seed) and what an event sink saw, in an order two equivalent replays share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "tests/timing/timing_fixtures.h"

namespace marlin::timing::testing {

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

// One simdgroup's ops: ALU runs (count 1..60, some with a dependent chain: trace.h's `chain`,
// which bounds a run's completion from its segment's start) mixed with memory ops, matrix
// multiplies and simdgroup barriers, plus `barriers` threadgroup barriers at pseudo-random
// places. ALU ops depend on the newest earlier load, as the engine's rule says. With
// `lead_with_load`, the first op is a threadgroup load (a newly dispatched simdgroup then
// competes for the threadgroup-memory pipe at once).
inline void fill_simdgroup(sim::SimdgroupTrace& sg, int barriers, Random& random, std::uint32_t tg,
                           bool lead_with_load) {
  const int ops = 4 + static_cast<int>(random.below(20));
  std::int32_t last_load = -1;
  int barriers_left = barriers;
  if (lead_with_load) {
    add_memory_op(sg, sim::OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId, 0, 4, 4);
    last_load = 0;
  }
  for (int i = 0; i < ops || barriers_left > 0; ++i) {
    const auto index = static_cast<std::int32_t>(sg.ops.size());
    const std::uint32_t what = random.below(16);
    if (barriers_left > 0 && (i >= ops || what == 0)) {
      sg.ops.push_back(simple_op(sim::OpClass::kThreadgroupBarrier, last_load));
      --barriers_left;
    } else if (what < 8) {
      const auto kind = static_cast<sim::AluKind>(random.below(13));
      const auto count = static_cast<std::uint16_t>(1 + random.below(60));
      sg.ops.push_back(alu_op(kind, count, last_load));
      // A dependent chain in the runs of every other kind, from the run's values (the
      // generator's sequence stays that of launches without chains).
      if (static_cast<int>(kind) % 2 == 1) sg.ops.back().chain = (7u * count + i) % (count + 1u);
    } else if (what < 10) {
      add_memory_op(sg, sim::OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId,
                    4 * random.below(64), 4 * (1 + random.below(32)), 4);
      last_load = index;
    } else if (what < 12) {
      add_memory_op(sg, sim::OpClass::kDeviceLoad, static_cast<std::uint16_t>(random.below(3)),
                    128 * random.below(64) + 4096 * tg, 4 * (1 + random.below(40)), 4);
      last_load = index;
    } else if (what < 13) {
      add_memory_op(sg, sim::OpClass::kDeviceStore, 3, 4096 * tg, 4, 4, last_load);
    } else if (what < 14) {
      sg.ops.push_back(simple_op(sim::OpClass::kMatrixMultiply, -1));
    } else if (what < 15) {
      sg.ops.push_back(simple_op(sim::OpClass::kSimdBarrier, last_load));
    } else {
      add_memory_op(sg, sim::OpClass::kThreadgroupStore, sim::kThreadgroupBufferId, 0, 4, 4,
                    last_load);
    }
  }
}

// Up to `max_groups` threadgroups of 1 to 8 simdgroups; in a third of the launches some
// simdgroups start with a threadgroup load.
inline sim::LaunchTrace random_launch(std::uint64_t seed, std::uint32_t max_groups) {
  Random random(seed);
  const std::uint32_t groups = 1 + random.below(max_groups);
  const std::uint32_t simdgroups = 1 + random.below(8);
  const bool loads_first = random.below(3) == 0;
  sim::LaunchTrace launch = launch_of(groups, 32 * simdgroups);
  for (std::uint32_t tg = 0; tg < groups; ++tg) {
    const int barriers = static_cast<int>(random.below(3));
    for (std::uint32_t s = 0; s < simdgroups; ++s) {
      if (random.below(8) == 0) continue;  // a simdgroup without a trace
      const bool lead_with_load = loads_first && random.below(2) == 0;
      fill_simdgroup(add_simdgroup(launch, tg, s), barriers, random, tg, lead_with_load);
    }
  }
  return launch;
}

// Appends an op with a 32-lane access stored as an affine run (two records, trace.h).
inline void add_affine_op(sim::SimdgroupTrace& sg, sim::OpClass op, std::uint16_t buffer,
                          std::uint32_t base, std::uint32_t stride_bytes, std::int32_t dep = -1) {
  const auto first = static_cast<std::uint32_t>(sg.accesses.size());
  sg.accesses.push_back(sim::MemAccess{base, buffer, 4, sim::kAffineRun});
  sg.accesses.push_back(sim::MemAccess{stride_bytes, 0, 0, 0});
  sg.ops.push_back(sim::TraceOp{
      .op = op, .kind = 0, .count = 32, .mask = 0xFFFFFFFFu, .dep = dep, .first_access = first});
}

// A main loop as kernels have: a random prologue, then `steps` repetitions of one random body
// per launch (the same in every simdgroup, so barriers match) whose device accesses advance by
// a fixed amount per step, whose threadgroup accesses alternate between two buffers (double
// buffering), whose ALU ops depend on the body's newest load and whose matrix multiplies on
// the previous one; each step ends at a threadgroup barrier. Then a random epilogue.
inline void fill_looped_simdgroup(sim::SimdgroupTrace& sg, const std::vector<std::uint32_t>& body,
                                  int steps, Random& random, std::uint32_t tg) {
  fill_simdgroup(sg, 0, random, tg, false);
  std::int32_t last_mma = -1;
  for (int step = 0; step < steps; ++step) {
    std::int32_t last_load = -1;
    const std::uint32_t stage = 2048 * static_cast<std::uint32_t>(step % 2);
    const std::uint32_t advance = 256 * static_cast<std::uint32_t>(step);
    for (const std::uint32_t what : body) {
      const auto index = static_cast<std::int32_t>(sg.ops.size());
      switch (what % 6) {
        case 0:
          sg.ops.push_back(alu_op(static_cast<sim::AluKind>(what / 6 % 13),
                                  static_cast<std::uint16_t>(1 + what % 40), last_load));
          break;
        case 1:
          add_memory_op(sg, sim::OpClass::kDeviceLoad, 1, 4096 * tg + advance, 4, 4);
          last_load = index;
          break;
        case 2:
          add_affine_op(sg, sim::OpClass::kDeviceLoad, 2, 65536 * tg + 2 * advance, 16);
          last_load = index;
          break;
        case 3:
          add_memory_op(sg, sim::OpClass::kThreadgroupStore, sim::kThreadgroupBufferId,
                        stage + 4 * (what % 7), 4, 4, last_load);
          break;
        case 4:
          add_affine_op(sg, sim::OpClass::kThreadgroupLoad, sim::kThreadgroupBufferId,
                        stage + 8 * (what % 5), 8);
          last_load = index;
          break;
        default:
          sg.ops.push_back(simple_op(sim::OpClass::kMatrixMultiply, last_mma));
          last_mma = index;
          break;
      }
    }
    sg.ops.push_back(simple_op(sim::OpClass::kThreadgroupBarrier, last_load));
  }
  fill_simdgroup(sg, 0, random, tg, false);
}

// Up to `max_groups` threadgroups of 1 to 4 simdgroups running a main loop of 2 to 40 steps
// of a body of 1 to 30 ops (fill_looped_simdgroup).
inline sim::LaunchTrace looped_launch(std::uint64_t seed, std::uint32_t max_groups) {
  Random random(seed);
  const std::uint32_t groups = 1 + random.below(max_groups);
  const std::uint32_t simdgroups = 1 + random.below(4);
  const int steps = 2 + static_cast<int>(random.below(39));
  std::vector<std::uint32_t> body(1 + random.below(30));
  for (std::uint32_t& what : body) what = random.below(6 * 13 * 40);
  sim::LaunchTrace launch = launch_of(groups, 32 * simdgroups);
  for (std::uint32_t tg = 0; tg < groups; ++tg) {
    for (std::uint32_t s = 0; s < simdgroups; ++s) {
      fill_looped_simdgroup(add_simdgroup(launch, tg, s), body, steps, random, tg);
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

inline SinkLog log_of(const RecordingSink& sink) {
  SinkLog log;
  for (const StateInterval& s : sink.states) {
    log.states.emplace_back(s.core, s.slot, static_cast<int>(s.state), s.begin, s.end);
  }
  std::stable_sort(log.states.begin(), log.states.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  for (const ThreadgroupRecord& t : sink.threadgroups) {
    log.threadgroups.emplace_back(t.launch, t.core, t.slot, t.threadgroup, t.begin, t.end);
  }
  for (const CounterSample& c : sink.counters) {
    log.counters.emplace_back(static_cast<int>(c.counter), c.core, c.at, c.value);
  }
  return log;
}

}  // namespace marlin::timing::testing
