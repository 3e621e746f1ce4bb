#include "model/timing/stats.h"

#include <gtest/gtest.h>

#include "model/common/invariant.h"

namespace marlin::timing {
namespace {

TEST(StatRegistryTest, CountersStartAtZeroAndAddByIndex) {
  StatRegistry stats;
  const StatId hits = stats.add_counter("hits", "accesses", "lines found");
  const StatId bytes = stats.add_counter("bytes", "bytes", "bytes moved");
  EXPECT_EQ(stats.value(hits), 0);
  stats.increment(hits);
  stats.increment(hits);
  stats.add(bytes, 128);
  stats.add(bytes, 64);
  EXPECT_EQ(stats.value(hits), 2);
  EXPECT_EQ(stats.value(bytes), 192);
  EXPECT_EQ(stats.value("bytes"), 192);
}

TEST(StatRegistryTest, EnumeratesInRegistrationOrder) {
  StatRegistry stats;
  stats.add_counter("b", "bytes", "second letter");
  const StatId a = stats.add_counter("a", "core cycles", "first letter");
  stats.add(a, 7);
  ASSERT_EQ(stats.size(), 2U);
  EXPECT_EQ(stats.info(0).name, "b");
  EXPECT_EQ(stats.info(1).name, "a");
  EXPECT_EQ(stats.info(1).unit, "core cycles");
  EXPECT_EQ(stats.info(1).description, "first letter");
  EXPECT_EQ(stats.value_at(0), 0);
  EXPECT_EQ(stats.value_at(1), 7);

  std::vector<StatRecord> records;
  stats.append_records("memory.l2.", records);
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[1].name, "memory.l2.a");
  EXPECT_EQ(records[1].unit, "core cycles");
  EXPECT_EQ(records[1].value, 7);
}

TEST(StatRegistryTest, NamesAreRegisteredOnce) {
  StatRegistry stats;
  stats.add_counter("hits", "accesses", "lines found");
  EXPECT_THROW(stats.add_counter("hits", "accesses", "again"), InvariantError);
  EXPECT_THROW(stats.add_counter("", "accesses", "no name"), InvariantError);
  EXPECT_THROW(static_cast<void>(stats.value("misses")), InvariantError);
}

TEST(StatRegistryTest, ResetAndAccumulate) {
  StatRegistry core0;
  StatRegistry core1;
  const StatId hits0 = core0.add_counter("hits", "accesses", "lines found");
  const StatId hits1 = core1.add_counter("hits", "accesses", "lines found");
  core0.add(hits0, 3);
  core1.add(hits1, 4);
  StatRegistry total = core0;
  total.accumulate(core1);
  EXPECT_EQ(total.value("hits"), 7);
  EXPECT_EQ(core0.value(hits0), 3);  // copies are independent
  core0.reset();
  EXPECT_EQ(core0.value(hits0), 0);
  EXPECT_EQ(core0.size(), 1U);

  StatRegistry other;
  other.add_counter("misses", "accesses", "lines not found");
  EXPECT_THROW(total.accumulate(other), InvariantError);
}

}  // namespace
}  // namespace marlin::timing
