#include "model/timing/reuse_distance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace marlin::timing {
namespace {

// The definition, directly: the distinct lines accessed strictly between an access and the
// previous access to its line.
ReuseDistances reference(const std::vector<std::uint64_t>& lines) {
  ReuseDistances out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::size_t j = i;
    while (j > 0 && lines[j - 1] != lines[i]) --j;
    if (j == 0) {
      ++out.first_accesses;
      continue;
    }
    const std::set<std::uint64_t> between(lines.begin() + static_cast<std::ptrdiff_t>(j),
                                          lines.begin() + static_cast<std::ptrdiff_t>(i));
    out.sorted.push_back(static_cast<std::uint32_t>(between.size()));
  }
  std::sort(out.sorted.begin(), out.sorted.end());
  return out;
}

TEST(ReuseDistance, CountsDistinctLinesSincePreviousAccess) {
  // a b c a b b d a: a after {b, c}: 2; b after {c, a}: 2; b again: 0; a after {b, d}: 2.
  const std::vector<std::uint64_t> lines{1, 2, 3, 1, 2, 2, 4, 1};
  const ReuseDistances d = reuse_distances(lines);
  EXPECT_EQ(d.first_accesses, 4);
  EXPECT_EQ(d.sorted, (std::vector<std::uint32_t>{0, 2, 2, 2}));
}

TEST(ReuseDistance, EmptyStream) {
  const ReuseDistances d = reuse_distances({});
  EXPECT_EQ(d.first_accesses, 0);
  EXPECT_TRUE(d.sorted.empty());
}

TEST(ReuseDistance, MatchesTheDefinitionOnARandomStream) {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> lines(3000);
  // Lines 0..199 with a bias to low numbers, so that distances spread from 0 to ~200.
  for (std::uint64_t& line : lines) line = (rng() % 200) * (rng() % 3 == 0 ? 1 : 0) + rng() % 40;
  const ReuseDistances fast = reuse_distances(lines);
  const ReuseDistances slow = reference(lines);
  EXPECT_EQ(fast.first_accesses, slow.first_accesses);
  EXPECT_EQ(fast.sorted, slow.sorted);
}

}  // namespace
}  // namespace marlin::timing
