// Simdgroup collectives against plain C++ references.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

TEST(SimdCollectivesTest, ShufflesMatchLaneArithmetic) {
  const std::uint32_t threads = 64;  // two simdgroups
  std::vector<float> in(threads);
  for (std::uint32_t i = 0; i < threads; ++i) in[i] = static_cast<float>(i * i) + 0.5f;
  std::vector<float> out(threads * 5, -1.0f);
  LaunchSpec s = spec("test_simd_shuffles", {1, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  EXPECT_TRUE(launch(s).ok());
  for (std::uint32_t g = 0; g < threads; ++g) {
    const std::uint32_t base = g / 32 * 32;
    const std::uint32_t lane = g % 32;
    const float* o = &out[g * 5];
    EXPECT_EQ(o[0], in[base + (lane * 7 + 3) % 32]) << g;
    EXPECT_EQ(o[1], lane < 3 ? in[g] : in[g - 3]) << g;       // up: low lanes keep theirs
    EXPECT_EQ(o[2], lane + 5 < 32 ? in[g + 5] : in[g]) << g;  // down: high lanes keep theirs
    EXPECT_EQ(o[3], in[base + (lane ^ 6)]) << g;
    EXPECT_EQ(o[4], in[base + 9]) << g;
  }
}

TEST(SimdCollectivesTest, ReductionsAndVotes) {
  const std::uint32_t threads = 96;
  std::vector<int> in(threads);
  for (std::uint32_t i = 0; i < threads; ++i) in[i] = static_cast<int>((i * 13) % 29) - 10;
  in[40] = 7;  // only the second simdgroup has a 7
  std::vector<int> out(threads * 3, 0);
  std::vector<std::uint32_t> votes(threads * 3, 0);
  LaunchSpec s = spec("test_simd_reductions", {1, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  s.buffers[2] = buffer(votes);
  EXPECT_TRUE(launch(s).ok());
  for (std::uint32_t sg = 0; sg < 3; ++sg) {
    int sum = 0, mn = 1 << 30, mx = -(1 << 30);
    std::uint32_t ballot = 0;
    bool any7 = false;
    for (std::uint32_t l = 0; l < 32; ++l) {
      const int v = in[sg * 32 + l];
      sum += v;
      mn = std::min(mn, v);
      mx = std::max(mx, v);
      if (v > 0) ballot |= 1u << l;
      any7 = any7 || v == 7;
    }
    for (std::uint32_t l = 0; l < 32; ++l) {
      const std::uint32_t g = sg * 32 + l;
      EXPECT_EQ(out[g * 3], sum);
      EXPECT_EQ(out[g * 3 + 1], mn);
      EXPECT_EQ(out[g * 3 + 2], mx);
      EXPECT_EQ(votes[g * 3], ballot);
      EXPECT_EQ(votes[g * 3 + 1], 1u);
      EXPECT_EQ(votes[g * 3 + 2], any7 ? 1u : 0u) << "simdgroup " << sg;
    }
  }
}

TEST(SimdCollectivesTest, HalfVectorSumAndShuffle) {
  const std::uint32_t threads = 32;
  std::vector<_Float16> in(threads * 2);
  for (std::uint32_t i = 0; i < threads; ++i) {
    in[2 * i] = static_cast<_Float16>(static_cast<float>(i) * 0.25f);
    in[2 * i + 1] = static_cast<_Float16>(-static_cast<float>(i));
  }
  std::vector<_Float16> out(threads * 4);
  LaunchSpec s = spec("test_simd_half_vector", {1, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  EXPECT_TRUE(launch(s).ok());
  // Sums of multiples of 0.25 up to 124 and of integers up to 496 are exact in half.
  const float sum_x = 0.25f * (31.0f * 32.0f / 2.0f);
  const float sum_y = -(31.0f * 32.0f / 2.0f);
  for (std::uint32_t l = 0; l < threads; ++l) {
    EXPECT_EQ(static_cast<float>(out[4 * l]), sum_x);
    EXPECT_EQ(static_cast<float>(out[4 * l + 1]), sum_y);
    EXPECT_EQ(static_cast<float>(out[4 * l + 2]), static_cast<float>(in[2 * (l ^ 1)]));
    EXPECT_EQ(static_cast<float>(out[4 * l + 3]), static_cast<float>(in[2 * (l ^ 1) + 1]));
  }
}

TEST(SimdCollectivesTest, ReturnedLanesAreInactive) {
  std::vector<int> in(32);
  for (int i = 0; i < 32; ++i) in[static_cast<std::size_t>(i)] = i + 1;
  std::vector<int> out(32, -1);
  LaunchSpec s = spec("test_simd_partial", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  EXPECT_TRUE(launch(s).ok());
  const int sum = 20 * 21 / 2;  // lanes 0..19 hold 1..20
  for (int l = 0; l < 32; ++l) EXPECT_EQ(out[static_cast<std::size_t>(l)], l < 20 ? sum : -1);
}

TEST(SimdCollectivesTest, SimdgroupBarrierOrdersThreadgroupMemoryWithinSimdgroup) {
  std::vector<int> out(64, -1);
  LaunchSpec s = spec("test_simdgroup_barrier", {1, 1, 1}, {64, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = launch(s);
  EXPECT_TRUE(r.ok());  // no race: the simdgroup barrier separates write and read
  for (int sg = 0; sg < 2; ++sg) {
    for (int l = 0; l < 32; ++l) {
      EXPECT_EQ(out[static_cast<std::size_t>(sg * 32 + l)], (31 - l) * 3 + sg);
    }
  }
}

}  // namespace
}  // namespace marlin::sim
