#include "model/timing/cycles.h"

#include <gtest/gtest.h>

#include "model/common/input_error.h"

namespace marlin::timing {
namespace {

TEST(CyclesTest, ArithmeticAndComparison) {
  EXPECT_EQ(Cycles(3) + Cycles(4), Cycles(7));
  EXPECT_EQ(Cycles(10) - Cycles(4), Cycles(6));
  EXPECT_EQ(Cycles(5) * 3, Cycles(15));
  EXPECT_EQ(2 * Cycles(5), Cycles(10));
  Cycles t(100);
  t += Cycles(20);
  t -= Cycles(5);
  EXPECT_EQ(t.count(), 115);
  EXPECT_LT(Cycles(1), Cycles(2));
  EXPECT_GE(Cycles(2), Cycles(2));
  EXPECT_NE(Cycles(2), Cycles(3));
  EXPECT_EQ(Cycles().count(), 0);
  EXPECT_EQ(later(Cycles(8), Cycles(3)), Cycles(8));
  EXPECT_EQ(later(Cycles(3), Cycles(8)), Cycles(8));
}

TEST(CyclesTest, ToSecondsUsesTheDeviceClock) {
  model::GpuSpec gpu;
  gpu.clock_hz = 1.5e9;
  // 3000 cycles / 1.5e9 Hz = 2e-6 s.
  EXPECT_DOUBLE_EQ(to_seconds(Cycles(3000), gpu), 2e-6);
  gpu.clock_hz = 1e9;
  EXPECT_DOUBLE_EQ(to_seconds(Cycles(3000), gpu), 3e-6);
}

TEST(CyclesTest, SecondsToCyclesRoundsUp) {
  model::GpuSpec gpu;
  gpu.clock_hz = 1e9;
  // 2.5 ns at 1 GHz is 2.5 cycles -> 3.
  EXPECT_EQ(cycles_ceil_from_seconds(2.5e-9, gpu), Cycles(3));
  EXPECT_EQ(cycles_ceil_from_seconds(0, gpu), Cycles(0));
  // 10 us at 1.578 GHz is exactly 15780 cycles; floating-point error must not add one.
  gpu.clock_hz = 1.578e9;
  EXPECT_EQ(cycles_ceil_from_seconds(10e-6, gpu), Cycles(15780));
  EXPECT_THROW(cycles_ceil_from_seconds(-1e-6, gpu), InputError);
  EXPECT_THROW(cycles_ceil_from_seconds(1e12, gpu), InputError);
}

}  // namespace
}  // namespace marlin::timing
