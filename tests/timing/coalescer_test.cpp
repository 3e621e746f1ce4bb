#include "model/timing/coalescer.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <set>
#include <vector>

#include "model/common/input_error.h"
#include "model/common/invariant.h"

namespace marlin::timing {
namespace {

constexpr LaneMask kAllLanes = 0xFFFFFFFFULL;

model::CacheSpec line_spec(int line_bytes) {
  return model::CacheSpec{.size_bytes = 8192, .line_bytes = line_bytes};
}

// 32 lanes: lane i accesses `bytes` at base + i * stride.
std::array<LaneAccess, 32> strided(std::uint64_t base, std::uint64_t stride, std::uint32_t bytes) {
  std::array<LaneAccess, 32> lanes{};
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    lanes[i] = LaneAccess{base + i * stride, bytes};
  }
  return lanes;
}

std::vector<std::uint64_t> lines_of(Coalescer& coalescer, LaneMask mask,
                                    std::span<const LaneAccess> lanes) {
  const auto lines = coalescer.coalesce(mask, lanes);
  return {lines.begin(), lines.end()};
}

TEST(CoalescerTest, ConsecutiveFloatsFitOneLine) {
  Coalescer coalescer(line_spec(128));
  const auto lanes = strided(0, 4, 4);  // bytes 0..127
  EXPECT_EQ(lines_of(coalescer, kAllLanes, lanes), (std::vector<std::uint64_t>{0}));
}

TEST(CoalescerTest, SixteenByteLanesTouchFourLines) {
  Coalescer coalescer(line_spec(128));
  const auto lanes = strided(0, 16, 16);  // bytes 0..511
  EXPECT_EQ(lines_of(coalescer, kAllLanes, lanes), (std::vector<std::uint64_t>{0, 128, 256, 384}));
}

TEST(CoalescerTest, LineStrideGivesOneRequestPerLane) {
  Coalescer coalescer(line_spec(128));
  const auto lanes = strided(4096, 128, 4);
  const auto lines = lines_of(coalescer, kAllLanes, lanes);
  ASSERT_EQ(lines.size(), 32U);
  for (std::size_t i = 0; i < 32; ++i) {
    EXPECT_EQ(lines[i], 4096 + 128 * i);
  }
}

TEST(CoalescerTest, UnalignedBaseStraddlesTwoLines) {
  Coalescer coalescer(line_spec(128));
  const auto lanes = strided(64, 4, 4);  // bytes 64..191
  EXPECT_EQ(lines_of(coalescer, kAllLanes, lanes), (std::vector<std::uint64_t>{0, 128}));
}

TEST(CoalescerTest, OneLaneStraddlingABoundaryTouchesBothLines) {
  Coalescer coalescer(line_spec(128));
  const std::array<LaneAccess, 1> lane{LaneAccess{126, 4}};  // bytes 126..129
  EXPECT_EQ(lines_of(coalescer, 1, lane), (std::vector<std::uint64_t>{0, 128}));
  const std::array<LaneAccess, 1> ends_at_boundary{LaneAccess{124, 4}};  // bytes 124..127
  EXPECT_EQ(lines_of(coalescer, 1, ends_at_boundary), (std::vector<std::uint64_t>{0}));
}

TEST(CoalescerTest, OnlyActiveLanesCountAndOrderIsAscending) {
  Coalescer coalescer(line_spec(64));
  auto lanes = strided(0, 1000, 4);
  lanes[0].address = 1000;  // line 15 (1000 / 64 = 15.6) -> address 960
  lanes[31].address = 8;    // line 0
  const LaneMask lane0_and_31 = (1ULL << 0) | (1ULL << 31);
  EXPECT_EQ(lines_of(coalescer, lane0_and_31, lanes), (std::vector<std::uint64_t>{0, 960}));
}

TEST(CoalescerTest, DescendingAddressesComeOutAscending) {
  Coalescer coalescer(line_spec(128));
  std::array<LaneAccess, 4> lanes{LaneAccess{384, 4}, LaneAccess{256, 4}, LaneAccess{128, 4},
                                  LaneAccess{0, 4}};
  EXPECT_EQ(lines_of(coalescer, 0xF, lanes), (std::vector<std::uint64_t>{0, 128, 256, 384}));
}

TEST(CoalescerTest, CountsAccessesLanesAndLineRequests) {
  Coalescer coalescer(line_spec(128));
  const auto lanes = strided(0, 16, 16);
  coalescer.coalesce(kAllLanes, lanes);  // 32 lanes, 4 lines
  coalescer.coalesce(0x3, lanes);        // 2 lanes, bytes 0..31: 1 line
  coalescer.coalesce(0, lanes);          // no active lane: not an access
  EXPECT_EQ(coalescer.stats().value("accesses"), 2);
  EXPECT_EQ(coalescer.stats().value("lane_accesses"), 34);
  EXPECT_EQ(coalescer.stats().value("line_requests"), 5);
  EXPECT_TRUE(coalescer.coalesce(0, lanes).empty());
}

// A line size that is not a power of two, and lanes far apart: 95..96 straddles lines 0 and
// 1 (96 bytes each); 200 is in line 2 (192..287); 100000 in line 1041 (99936..100031).
TEST(CoalescerTest, LineSizeThatIsNotAPowerOfTwo) {
  Coalescer coalescer(model::CacheSpec{.size_bytes = 9600, .line_bytes = 96});
  const std::array<LaneAccess, 4> lanes{LaneAccess{100000, 4}, LaneAccess{200, 4},
                                        LaneAccess{95, 2}, LaneAccess{0, 4}};
  EXPECT_EQ(lines_of(coalescer, 0xF, lanes), (std::vector<std::uint64_t>{0, 96, 192, 99936}));
}

// Affine runs, coalesced as (first access, stride) pairs, against the lines a plain set of
// every touched byte's line gives, and the counters those lines imply: strides from 0 to a
// few lines and negative ones (2^32 - d), offsets near 2^32 so that runs wrap, three line
// sizes.
TEST(CoalescerTest, AffineRunsTouchTheLinesOfTheirLanes) {
  std::mt19937_64 random(7);
  for (const int line : {128, 64, 96}) {
    Coalescer coalescer(line_spec(line));
    std::int64_t lanes_total = 0;
    std::int64_t lines_total = 0;
    for (int trial = 0; trial < 3000; ++trial) {
      const std::uint64_t base = (random() % 4) << 40;
      const auto lanes = static_cast<std::uint32_t>(1 + random() % 64);
      const auto bytes = static_cast<std::uint32_t>(1 + random() % 16);
      std::uint32_t stride = 0;
      switch (random() % 4) {
        case 0:
          stride = static_cast<std::uint32_t>(random() % (line + 1));
          break;
        case 1:
          stride = static_cast<std::uint32_t>(random() % (4 * line));
          break;
        case 2:
          stride = static_cast<std::uint32_t>(0 - (1 + random() % (2 * line)));
          break;
        default:
          stride = static_cast<std::uint32_t>(bytes);
          break;
      }
      const auto offset = static_cast<std::uint32_t>(
          random() % 3 == 0 ? 0xFFFFFFFFu - random() % 2048 : random() % 100000);
      std::set<std::uint64_t> expected;
      for (std::uint32_t i = 0; i < lanes; ++i) {
        const std::uint64_t start = base + static_cast<std::uint32_t>(offset + stride * i);
        for (std::uint64_t b = start; b < start + bytes; ++b) expected.insert(b / line * line);
      }
      const auto got = coalescer.coalesce_affine(base, offset, stride, bytes, lanes);
      ASSERT_EQ(std::vector<std::uint64_t>(got.begin(), got.end()),
                std::vector<std::uint64_t>(expected.begin(), expected.end()))
          << "line " << line << " offset " << offset << " stride " << stride << " bytes " << bytes
          << " lanes " << lanes;
      lanes_total += lanes;
      lines_total += static_cast<std::int64_t>(expected.size());
    }
    EXPECT_EQ(coalescer.stats().value("accesses"), 3000);
    EXPECT_EQ(coalescer.stats().value("lane_accesses"), lanes_total);
    EXPECT_EQ(coalescer.stats().value("line_requests"), lines_total);
  }
}

TEST(CoalescerTest, RejectsBadInput) {
  EXPECT_THROW(Coalescer(line_spec(0)), InputError);
  Coalescer coalescer(line_spec(128));
  const std::array<LaneAccess, 2> lanes{LaneAccess{0, 4}, LaneAccess{4, 0}};
  EXPECT_THROW(coalescer.coalesce(0x4, lanes), InvariantError);  // lane 2 has no entry
  EXPECT_THROW(coalescer.coalesce(0x2, lanes), InvariantError);  // zero-byte access
}

}  // namespace
}  // namespace marlin::timing
