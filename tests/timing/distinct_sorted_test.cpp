#include "model/timing/distinct_sorted.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace marlin::timing {
namespace {

// The reference: the distinct values in ascending order, through std::set.
std::vector<std::uint64_t> reference(const std::vector<std::uint64_t>& values) {
  const std::set<std::uint64_t> distinct(values.begin(), values.end());
  return {distinct.begin(), distinct.end()};
}

TEST(DistinctSortedTest, HandWorkedLists) {
  std::vector<std::uint64_t> empty;
  make_distinct_sorted(empty);
  EXPECT_TRUE(empty.empty());

  std::vector<std::uint64_t> one = {42};
  make_distinct_sorted(one);
  EXPECT_EQ(one, (std::vector<std::uint64_t>{42}));

  std::vector<std::uint64_t> in_order = {1, 1, 2, 5, 5, 5, 1u << 20};
  make_distinct_sorted(in_order);
  EXPECT_EQ(in_order, (std::vector<std::uint64_t>{1, 2, 5, 1u << 20}));

  std::vector<std::uint64_t> repeats = {9, 3, 9, 3, 3, 100};
  make_distinct_sorted(repeats);
  EXPECT_EQ(repeats, (std::vector<std::uint64_t>{3, 9, 100}));

  // 511 apart: still one bitmap; 512 apart: sorted instead. Both give the same answer.
  std::vector<std::uint64_t> span511 = {1000 + 511, 1000, 1000 + 64, 1000 + 63, 1000};
  make_distinct_sorted(span511);
  EXPECT_EQ(span511, (std::vector<std::uint64_t>{1000, 1063, 1064, 1511}));
  std::vector<std::uint64_t> span512 = {1000 + 512, 1000, 1000 + 512};
  make_distinct_sorted(span512);
  EXPECT_EQ(span512, (std::vector<std::uint64_t>{1000, 1512}));
}

TEST(DistinctSortedTest, MatchesASetOnRandomLists) {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::uint64_t base = random() >> (random() % 64);
    const std::uint64_t span = std::uint64_t{1} << (random() % 14);  // 1 .. 8192
    std::vector<std::uint64_t> values(random() % 70);
    for (std::uint64_t& v : values) v = base + random() % span;
    if (trial % 3 == 0) std::sort(values.begin(), values.end());  // the in-order path
    const std::vector<std::uint64_t> expected = reference(values);
    make_distinct_sorted(values);
    EXPECT_EQ(values, expected) << "trial " << trial;
  }
}

}  // namespace
}  // namespace marlin::timing
