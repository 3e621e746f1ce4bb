// The parallel replay's boundary moves (partition_balance.h), against cases worked by hand.
#include "model/timing/partition_balance.h"

#include <gtest/gtest.h>

namespace marlin::timing {
namespace {

// 10 cores in 1.0 s against 10 in 0.8 s: the lead (0.2 s) passes a core's share of the
// busier one (0.1 s), and after the move 0.9 s against 0.9 s.
TEST(BoundaryMove, GivesACoreWhenTheLeadPassesOneCoresShare) {
  EXPECT_EQ(boundary_move(1.0, 10, 0.8, 10), 1);
  EXPECT_EQ(boundary_move(0.8, 10, 1.0, 10), -1);
  // 1.0 s over 4 cores is 0.25 s each: a lead of 0.3 s moves one, of 0.2 s none.
  EXPECT_EQ(boundary_move(1.0, 4, 0.7, 36), 1);
  EXPECT_EQ(boundary_move(1.0, 4, 0.8, 36), 0);
}

// 0.1 s per core: a lead of exactly 0.1 s would only swap the two times, so it stays.
TEST(BoundaryMove, KeepsTheBoundaryWhenAMoveWouldNotHelp) {
  EXPECT_EQ(boundary_move(1.0, 10, 0.9, 10), 0);
  EXPECT_EQ(boundary_move(0.9, 10, 1.0, 10), 0);
  EXPECT_EQ(boundary_move(1.0, 10, 0.95, 10), 0);
  EXPECT_EQ(boundary_move(0.0, 4, 0.0, 4), 0);
}

TEST(BoundaryMove, EachPartitionKeepsACore) {
  EXPECT_EQ(boundary_move(1.0, 1, 0.1, 39), 0);
  EXPECT_EQ(boundary_move(0.1, 39, 1.0, 1), 0);
  EXPECT_EQ(boundary_move(1.0, 2, 0.1, 1), 1);
}

TEST(SweepMove, GoesOnUntilAPartitionIsDownToOneCoreThenTurns) {
  EXPECT_EQ(sweep_move(1, 3, 5), 1);
  EXPECT_EQ(sweep_move(1, 1, 5), -1);
  EXPECT_EQ(sweep_move(-1, 3, 5), -1);
  EXPECT_EQ(sweep_move(-1, 3, 1), 1);
  EXPECT_EQ(sweep_move(1, 1, 1), 0);
  EXPECT_EQ(sweep_move(-1, 1, 1), 0);
}

}  // namespace
}  // namespace marlin::timing
