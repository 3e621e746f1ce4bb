// Waves and GEMM grids, with expected values worked out by hand.
#include "model/analytic/waves.h"

#include <gtest/gtest.h>

#include "model/common/input_error.h"

namespace marlin::analytic {
namespace {

// 384 threadgroups over 6 per core x 8 cores = 48 slots: exactly 8 full waves.
TEST(Waves, FullLastWave) {
  const WaveResult w = compute_waves(384, 6, 8);
  EXPECT_EQ(w.slots, 48);
  EXPECT_EQ(w.waves, 8);
  EXPECT_EQ(w.full_waves, 8);
  EXPECT_EQ(w.tail_threadgroups, 0);
  EXPECT_DOUBLE_EQ(w.tail_fraction, 0.0);
  EXPECT_DOUBLE_EQ(w.efficiency, 1.0);
}

// 4096 threadgroups over 24 x 8 = 192 slots: 21 full waves (4032), a tail of 64 = 1/3 of a
// wave, 22 waves, efficiency 4096 / (22 * 192) = 4096 / 4224.
TEST(Waves, PartialTail) {
  const WaveResult w = compute_waves(4096, 24, 8);
  EXPECT_EQ(w.slots, 192);
  EXPECT_EQ(w.waves, 22);
  EXPECT_EQ(w.full_waves, 21);
  EXPECT_EQ(w.tail_threadgroups, 64);
  EXPECT_DOUBLE_EQ(w.tail_fraction, 64.0 / 192.0);
  EXPECT_DOUBLE_EQ(w.efficiency, 4096.0 / 4224.0);
}

// Fewer threadgroups than slots: one partial wave, no full wave.
TEST(Waves, LessThanOneWave) {
  const WaveResult w = compute_waves(10, 4, 8);
  EXPECT_EQ(w.waves, 1);
  EXPECT_EQ(w.full_waves, 0);
  EXPECT_EQ(w.tail_threadgroups, 10);
  EXPECT_DOUBLE_EQ(w.tail_fraction, 10.0 / 32.0);
  EXPECT_DOUBLE_EQ(w.efficiency, 10.0 / 32.0);
}

// One more threadgroup than a full wave: 2 waves, tail of 1.
TEST(Waves, OneOverAFullWave) {
  const WaveResult w = compute_waves(321, 8, 40);
  EXPECT_EQ(w.waves, 2);
  EXPECT_EQ(w.full_waves, 1);
  EXPECT_EQ(w.tail_threadgroups, 1);
  EXPECT_DOUBLE_EQ(w.efficiency, 321.0 / 640.0);
}

TEST(Waves, RejectsNonPositiveCounts) {
  EXPECT_THROW(compute_waves(0, 4, 8), InputError);
  EXPECT_THROW(compute_waves(10, 0, 8), InputError);
  EXPECT_THROW(compute_waves(10, 4, 0), InputError);
  EXPECT_THROW(compute_waves(-1, 4, 8), InputError);
}

TEST(GemmGrid, CountsTilesWithRoundUp) {
  const GemmGrid square = gemm_grid(4096, 4096, 64, 64);
  EXPECT_EQ(square.tiles_m, 64);
  EXPECT_EQ(square.tiles_n, 64);
  EXPECT_EQ(square.threadgroups, 4096);
  // M = 16 fits one 32-row tile; N = 11008 / 128 = 86 tiles.
  const GemmGrid decode = gemm_grid(16, 11008, 32, 128);
  EXPECT_EQ(decode.tiles_m, 1);
  EXPECT_EQ(decode.tiles_n, 86);
  EXPECT_EQ(decode.threadgroups, 86);
  // 100 / 64 -> 2 each way.
  EXPECT_EQ(gemm_grid(100, 100, 64, 64).threadgroups, 4);
  EXPECT_THROW(gemm_grid(0, 100, 64, 64), InputError);
  EXPECT_THROW(gemm_grid(100, 100, 64, 0), InputError);
}

}  // namespace
}  // namespace marlin::analytic
