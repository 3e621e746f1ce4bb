// Simdgroup collectives in divergent control flow run with the lanes that took the branch;
// expected values from plain C++ loops over those lanes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

// Sum of in[base + l] (+ add) over the lanes l < lanes for which pick(l) holds.
template <class Pick>
int lane_sum(const std::vector<int>& in, std::uint32_t base, std::uint32_t lanes, Pick pick,
             int add = 0) {
  int s = 0;
  for (std::uint32_t l = 0; l < lanes; ++l) {
    if (pick(l)) s += in[base + l] + add;
  }
  return s;
}

std::vector<int> ramp(std::uint32_t n) {
  std::vector<int> v(n);
  for (std::uint32_t i = 0; i < n; ++i) v[i] = static_cast<int>((i * 7) % 23) - 5;
  return v;
}

TEST(SimdDivergenceTest, IfElseWithReductionsOnBothSides) {
  const std::uint32_t threads = 48;  // simdgroup 1 has 16 lanes
  std::vector<int> in = ramp(threads);
  std::vector<int> out(threads, -7);
  LaunchSpec s = spec("test_divergent_if_else", {1, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  EXPECT_TRUE(launch(s).ok());
  for (std::uint32_t g = 0; g < threads; ++g) {
    const std::uint32_t base = g / 32 * 32;
    const std::uint32_t lanes = std::min(32u, threads - base);
    const bool third = g % 32 % 3 == 0;
    const int expected =
        third ? lane_sum(in, base, lanes, [](std::uint32_t l) { return l % 3 == 0; })
              : lane_sum(
                    in, base, lanes, [](std::uint32_t l) { return l % 3 != 0; }, 100);
    EXPECT_EQ(out[g], expected) << g;
  }
}

TEST(SimdDivergenceTest, BranchRunsBeforeTheReconvergedCollective) {
  const std::uint32_t threads = 48;
  std::vector<int> in = ramp(threads);
  std::vector<int> out(2 * threads, -7);
  LaunchSpec s = spec("test_divergent_reconverge", {1, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  const LaunchResult r = launch(s);
  EXPECT_TRUE(r.ok());
  for (std::uint32_t g = 0; g < threads; ++g) {
    const std::uint32_t base = g / 32 * 32;
    const std::uint32_t lanes = std::min(32u, threads - base);
    const int inside = lane_sum(in, base, lanes, [](std::uint32_t l) { return l % 4 == 1; });
    const int all = lane_sum(in, base, lanes, [](std::uint32_t) { return true; });
    EXPECT_EQ(out[2 * g], g % 4 == 1 ? inside : -1) << g;
    EXPECT_EQ(out[2 * g + 1], all) << g;
  }
  // The trace records the branch's reduction with the lanes that took it, then the
  // reconverged one with every lane.
  ASSERT_EQ(r.trace.simdgroups.size(), 2u);
  for (std::uint32_t sg = 0; sg < 2; ++sg) {
    std::vector<std::uint32_t> masks;
    for (const TraceOp& op : r.trace.simdgroups[sg].ops) {
      if (op.op == OpClass::kReduction) masks.push_back(op.mask);
    }
    const std::uint32_t full = sg == 0 ? 0xFFFFFFFFu : 0xFFFFu;
    const std::uint32_t branch = 0x22222222u & full;  // lanes 1, 5, 9, ...
    EXPECT_EQ(masks, (std::vector<std::uint32_t>{branch, full})) << "simdgroup " << sg;
  }
}

TEST(SimdDivergenceTest, PartialReductionWhileOthersWaitAtABarrier) {
  const std::uint32_t threads = 64;
  std::vector<int> in = ramp(threads);
  std::vector<int> out(threads, -7);
  LaunchSpec s = spec("test_divergent_before_barrier", {1, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  const LaunchResult r = launch(s);
  EXPECT_TRUE(r.ok()) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
  const int first16 = lane_sum(in, 0, 32, [](std::uint32_t l) { return l < 16; });
  for (std::uint32_t t = 0; t < threads; ++t) EXPECT_EQ(out[t], first16) << t;
}

TEST(SimdDivergenceTest, NestedBranches) {
  const std::uint32_t threads = 64;
  std::vector<int> in = ramp(threads);
  std::vector<int> out(4 * threads, -7);
  LaunchSpec s = spec("test_divergent_nested", {1, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  EXPECT_TRUE(launch(s).ok());
  for (std::uint32_t g = 0; g < threads; ++g) {
    const std::uint32_t base = g / 32 * 32;
    const std::uint32_t lane = g % 32;
    int a = 0, d = 0;
    int b = -1000, c = 1000;
    for (std::uint32_t l = 0; l < 32; ++l) {
      const int v = in[base + l];
      if (l < 20) {
        a += v;
        c = std::min(c, v);
        if (l % 2 == 0) b = std::max(b, v);
      } else {
        d += v;
      }
    }
    const int* o = &out[4 * g];
    EXPECT_EQ(o[0], lane < 20 ? a : -1) << g;
    EXPECT_EQ(o[1], lane < 20 && lane % 2 == 0 ? b : -1) << g;
    EXPECT_EQ(o[2], lane < 20 ? c : -1) << g;
    EXPECT_EQ(o[3], lane >= 20 ? d : -1) << g;
  }
}

TEST(SimdDivergenceTest, VotesSeeOnlyActiveLanes) {
  const std::uint32_t threads = 64;
  std::vector<int> in(threads);
  for (std::uint32_t i = 0; i < threads; ++i) in[i] = static_cast<int>(i % 32) + 1;
  in[3] = -100;  // inactive lanes (< 8): ignored by every vote
  in[5] = -1;
  in[32 + 10] = 0;  // simdgroup 1: one active lane is not positive
  std::vector<std::uint32_t> out(4 * threads, 7);
  LaunchSpec s = spec("test_divergent_votes", {1, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  EXPECT_TRUE(launch(s).ok());
  for (std::uint32_t sg = 0; sg < 2; ++sg) {
    std::uint32_t bits = 0;
    bool all_positive = true;
    bool any_very_negative = false;
    for (std::uint32_t l = 8; l < 32; ++l) {
      const int v = in[sg * 32 + l];
      if (v > 0) bits |= 1u << l;
      all_positive = all_positive && v > 0;
      any_very_negative = any_very_negative || v < -50;
    }
    for (std::uint32_t l = 0; l < 32; ++l) {
      const std::uint32_t* o = &out[4 * (sg * 32 + l)];
      if (l < 8) {
        EXPECT_EQ(o[0], 0xFFFFFFFFu);
        EXPECT_EQ(o[1], 2u);
        continue;
      }
      EXPECT_EQ(o[0], bits) << sg << " " << l;
      EXPECT_EQ(o[1], all_positive ? 1u : 0u) << sg << " " << l;
      EXPECT_EQ(o[2], any_very_negative ? 1u : 0u) << sg << " " << l;
      EXPECT_EQ(o[3], all_positive ? 1u : 0u) << sg << " " << l;  // vote.all() agrees
    }
  }
}

TEST(SimdDivergenceTest, ShuffleFromAnInactiveLaneReturnsTheOwnValue) {
  const std::uint32_t threads = 32;
  std::vector<float> in(threads);
  for (std::uint32_t i = 0; i < threads; ++i) in[i] = static_cast<float>(i) * 1.5f + 0.25f;
  std::vector<float> out(2 * threads, 7.0f);
  LaunchSpec s = spec("test_divergent_shuffle", {1, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  EXPECT_TRUE(launch(s).ok());
  for (std::uint32_t l = 0; l < threads; ++l) {
    // Lane l + 16 did not take the branch: the engine's documented choice is lane l's value.
    EXPECT_EQ(out[2 * l], l < 16 ? in[l] : -1.0f) << l;
    EXPECT_EQ(out[2 * l + 1], l < 16 ? in[l ^ 1] : -1.0f) << l;
  }
}

TEST(SimdDivergenceTest, LoopWithPerLaneTripCounts) {
  const std::uint32_t threads = 32;
  std::vector<int> out(threads, -7);
  LaunchSpec s = spec("test_divergent_loop", {1, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = launch(s);
  EXPECT_TRUE(r.ok());
  for (std::uint32_t l = 0; l < threads; ++l) {
    int expected = 0;
    for (std::uint32_t i = 0; i < l % 4 + 1; ++i) {
      int active = 0;  // lanes whose trip count exceeds i
      for (std::uint32_t m = 0; m < threads; ++m) active += m % 4 + 1 > i ? 1 : 0;
      expected += active;
    }
    EXPECT_EQ(out[l], expected) << l;
  }
  // One reduction per iteration, each with the lanes still looping.
  std::vector<std::uint32_t> masks;
  for (const TraceOp& op : r.trace.simdgroups[0].ops) {
    if (op.op == OpClass::kReduction) masks.push_back(op.mask);
  }
  std::vector<std::uint32_t> expected_masks;
  for (std::uint32_t i = 0; i < 4; ++i) {
    std::uint32_t m = 0;
    for (std::uint32_t l = 0; l < threads; ++l) m |= l % 4 + 1 > i ? 1u << l : 0u;
    expected_masks.push_back(m);
  }
  EXPECT_EQ(masks, expected_masks);
}

}  // namespace
}  // namespace marlin::sim
