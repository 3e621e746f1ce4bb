// Arithmetic intensity and roofline, with every expected value written out by hand.
#include "model/analytic/intensity.h"

#include <gtest/gtest.h>

#include "model/common/input_error.h"
#include "tests/analytic/test_devices.h"

namespace marlin::analytic {
namespace {

const WeightSpec kFp16{WeightFormat::kFp16, ScaleMode::kNone, 0, false};
const WeightSpec kFp4{WeightFormat::kFp4, ScaleMode::kNone, 0, false};
const WeightSpec kU4{WeightFormat::kU4, ScaleMode::kNone, 0, false};

// Per-iteration figures of one configuration, written out: FLOPs = 2 tm tn tk,
// A = tm tk * 2 B, B = tk tn * 2 B (fp16) or tk tn / 2 B (4-bit).
struct IterationCase {
  Tile tile;
  std::int64_t flops;
  double a_bytes;
  double b_fp16_bytes;
  double b_4bit_bytes;
};

const IterationCase kCases[] = {
    // 64x64x32: 262144 FLOPs; A 4096; B 4096 / 1024.
    {{64, 64, 32}, 2 * 64 * 64 * 32, 64 * 32 * 2, 32 * 64 * 2, 32 * 64 / 2},
    // 128x64x16: 262144 FLOPs; A 4096; B 2048 / 512.
    {{128, 64, 16}, 2 * 128 * 64 * 16, 128 * 16 * 2, 16 * 64 * 2, 16 * 64 / 2},
    // 32x128x32: 262144 FLOPs; A 2048; B 8192 / 2048.
    {{32, 128, 32}, 2 * 32 * 128 * 32, 32 * 32 * 2, 32 * 128 * 2, 32 * 128 / 2},
    // 128x128x16: 524288 FLOPs; A 4096; B 4096 / 1024.
    {{128, 128, 16}, 2 * 128 * 128 * 16, 128 * 16 * 2, 16 * 128 * 2, 16 * 128 / 2},
    // 64x64x64: 524288 FLOPs; A 8192; B 8192 / 2048.
    {{64, 64, 64}, 2 * 64 * 64 * 64, 64 * 64 * 2, 64 * 64 * 2, 64 * 64 / 2},
};

TEST(IterationIntensity, FiveConfigurationsThreeFormats) {
  for (const IterationCase& c : kCases) {
    SCOPED_TRACE(tile_name(c.tile));
    const IterationIntensity fp16 = iteration_intensity(c.tile, kFp16);
    EXPECT_EQ(fp16.flops, c.flops);
    EXPECT_DOUBLE_EQ(fp16.a_bytes, c.a_bytes);
    EXPECT_DOUBLE_EQ(fp16.b_bytes, c.b_fp16_bytes);
    EXPECT_DOUBLE_EQ(fp16.scale_bytes, 0.0);
    EXPECT_DOUBLE_EQ(fp16.total_bytes, c.a_bytes + c.b_fp16_bytes);
    EXPECT_DOUBLE_EQ(fp16.intensity, c.flops / (c.a_bytes + c.b_fp16_bytes));
    for (const WeightSpec& w : {kFp4, kU4}) {
      const IterationIntensity q = iteration_intensity(c.tile, w);
      EXPECT_EQ(q.flops, c.flops);
      EXPECT_DOUBLE_EQ(q.b_bytes, c.b_4bit_bytes);
      EXPECT_DOUBLE_EQ(q.intensity, c.flops / (c.a_bytes + c.b_4bit_bytes));
      EXPECT_DOUBLE_EQ(q.intensity_without_scales, q.intensity);
    }
  }
}

// A problem exactly one tile and one iteration big reads the tile's A and B once and writes
// its C (2 * tm * tn B): the two forms agree on FLOPs and on the input bytes.
TEST(ProblemIntensity, OneTileProblemMatchesOneIteration) {
  for (const IterationCase& c : kCases) {
    SCOPED_TRACE(tile_name(c.tile));
    const ProblemShape shape{c.tile.tm, c.tile.tn, c.tile.tk};
    const double c_bytes = 2.0 * c.tile.tm * c.tile.tn;
    const ProblemIntensity fp16 = problem_intensity(shape, kFp16);
    EXPECT_EQ(fp16.flops, c.flops);
    EXPECT_EQ(fp16.total_bytes, c.a_bytes + c.b_fp16_bytes + c_bytes);
    EXPECT_DOUBLE_EQ(fp16.intensity, c.flops / (c.a_bytes + c.b_fp16_bytes + c_bytes));
    for (const WeightSpec& w : {kFp4, kU4}) {
      const ProblemIntensity q = problem_intensity(shape, w);
      EXPECT_EQ(q.flops, c.flops);
      EXPECT_EQ(q.b_bytes, c.b_4bit_bytes);
      EXPECT_EQ(q.total_bytes, c.a_bytes + c.b_4bit_bytes + c_bytes);
    }
  }
}

TEST(WeightFormat, NamesAndBits) {
  EXPECT_EQ(parse_weight_format("fp4"), WeightFormat::kFp4);
  EXPECT_EQ(parse_weight_format("u4"), WeightFormat::kU4);
  EXPECT_EQ(parse_weight_format("fp16"), WeightFormat::kFp16);
  EXPECT_THROW(parse_weight_format("int4"), InputError);
  EXPECT_EQ(weight_bits(WeightFormat::kFp16), 16);
  EXPECT_EQ(weight_bits(WeightFormat::kFp4), 4);
  EXPECT_EQ(weight_bits(WeightFormat::kU4), 4);
}

// The resulting intensities, as plain numbers: fp16 then 4-bit.
TEST(IterationIntensity, SpelledOutValues) {
  EXPECT_DOUBLE_EQ(iteration_intensity({64, 64, 32}, kFp16).intensity, 262144.0 / 8192);  // 32
  EXPECT_DOUBLE_EQ(iteration_intensity({64, 64, 32}, kFp4).intensity, 262144.0 / 5120);   // 51.2
  EXPECT_DOUBLE_EQ(iteration_intensity({128, 64, 16}, kFp16).intensity, 262144.0 / 6144);
  EXPECT_DOUBLE_EQ(iteration_intensity({128, 64, 16}, kFp4).intensity, 262144.0 / 4608);
  // 32x128x32 with fp16 weights: 262144 / (2048 + 8192) = 25.6.
  EXPECT_DOUBLE_EQ(iteration_intensity({32, 128, 32}, kFp16).intensity, 25.6);
  EXPECT_DOUBLE_EQ(iteration_intensity({32, 128, 32}, kU4).intensity, 64.0);
  EXPECT_DOUBLE_EQ(iteration_intensity({128, 128, 16}, kFp16).intensity, 64.0);
  EXPECT_DOUBLE_EQ(iteration_intensity({128, 128, 16}, kFp4).intensity, 102.4);
  EXPECT_DOUBLE_EQ(iteration_intensity({64, 64, 64}, kFp16).intensity, 32.0);
  EXPECT_DOUBLE_EQ(iteration_intensity({64, 64, 64}, kFp4).intensity, 51.2);
}

// 64x64x32, fp4, groups of 128: scales 32 / 128 * 64 * 2 = 32 B; total 4096 + 1024 + 32.
// u4 with zero points adds 32 / 128 * 64 / 2 = 8 B.
TEST(IterationIntensity, GroupScalesAndZeroPoints) {
  const IterationIntensity fp4 =
      iteration_intensity({64, 64, 32}, {WeightFormat::kFp4, ScaleMode::kPerGroup, 128, false});
  EXPECT_DOUBLE_EQ(fp4.scale_bytes, 32.0);
  EXPECT_DOUBLE_EQ(fp4.total_bytes, 5152.0);
  EXPECT_DOUBLE_EQ(fp4.intensity, 262144.0 / 5152.0);
  EXPECT_DOUBLE_EQ(fp4.intensity_without_scales, 51.2);
  const IterationIntensity u4 =
      iteration_intensity({64, 64, 32}, {WeightFormat::kU4, ScaleMode::kPerGroup, 128, true});
  EXPECT_DOUBLE_EQ(u4.zero_point_bytes, 8.0);
  EXPECT_DOUBLE_EQ(u4.total_bytes, 5160.0);
  // Groups of 16 with tk = 32: two groups per iteration, 2 * 64 * 2 = 256 B of scales.
  EXPECT_DOUBLE_EQ(
      iteration_intensity({64, 64, 32}, {WeightFormat::kFp4, ScaleMode::kPerGroup, 16, false})
          .scale_bytes,
      256.0);
  // Per-column scales are loaded once per K: nothing per iteration.
  EXPECT_DOUBLE_EQ(
      iteration_intensity({64, 64, 32}, {WeightFormat::kU4, ScaleMode::kPerColumn, 0, true})
          .scale_bytes,
      0.0);
}

TEST(IterationIntensity, RejectsBadInput) {
  EXPECT_THROW(iteration_intensity({60, 64, 32}, kFp4), InputError);
  EXPECT_THROW(iteration_intensity({64, 0, 32}, kFp4), InputError);
  EXPECT_THROW(iteration_intensity({64, 64, -8}, kFp4), InputError);
  EXPECT_THROW(
      iteration_intensity({64, 64, 32}, {WeightFormat::kFp16, ScaleMode::kPerGroup, 128, false}),
      InputError);
  EXPECT_THROW(
      iteration_intensity({64, 64, 32}, {WeightFormat::kFp4, ScaleMode::kPerGroup, 128, true}),
      InputError);
  EXPECT_THROW(iteration_intensity({64, 64, 32}, {WeightFormat::kU4, ScaleMode::kNone, 0, true}),
               InputError);
  EXPECT_THROW(
      iteration_intensity({64, 64, 32}, {WeightFormat::kFp4, ScaleMode::kPerGroup, 0, false}),
      InputError);
}

// M = 16, N = 4096, K = 11008, fp4, groups of 128:
// FLOPs 2 * 16 * 4096 * 11008; A 2 * 16 * 11008 = 352256; B 11008 * 4096 / 2 = 22544384;
// scales ceil(11008 / 128) = 86 groups * 4096 * 2 = 704512; C 2 * 16 * 4096 = 131072.
TEST(ProblemIntensity, DecodeShapeFp4) {
  const ProblemIntensity p =
      problem_intensity({16, 4096, 11008}, {WeightFormat::kFp4, ScaleMode::kPerGroup, 128, false});
  EXPECT_EQ(p.flops, std::int64_t{2} * 16 * 4096 * 11008);
  EXPECT_EQ(p.a_bytes, 352256);
  EXPECT_EQ(p.b_bytes, 22544384);
  EXPECT_EQ(p.scale_bytes, 704512);
  EXPECT_EQ(p.zero_point_bytes, 0);
  EXPECT_EQ(p.c_bytes, 131072);
  EXPECT_EQ(p.total_bytes, 352256 + 22544384 + 704512 + 131072);
  EXPECT_DOUBLE_EQ(p.intensity, 1442840576.0 / 23732224.0);
}

// Same shape with u4 and zero points: 86 * 4096 values of 4 bits = 176128 B more.
// fp16 weights: B 11008 * 4096 * 2 = 90177536, no scales.
TEST(ProblemIntensity, ZeroPointsAndFp16) {
  const ProblemIntensity u4 =
      problem_intensity({16, 4096, 11008}, {WeightFormat::kU4, ScaleMode::kPerGroup, 128, true});
  EXPECT_EQ(u4.zero_point_bytes, 176128);
  EXPECT_EQ(u4.total_bytes, 352256 + 22544384 + 704512 + 176128 + 131072);
  const ProblemIntensity fp16 = problem_intensity({16, 4096, 11008}, kFp16);
  EXPECT_EQ(fp16.b_bytes, 90177536);
  EXPECT_EQ(fp16.total_bytes, 352256 + 90177536 + 131072);
}

// Odd sizes: K = 5, N = 3 fp4 is 15 values = 60 bits -> 8 B. K = 100, G = 64: 2 groups; per
// column: N scales; 3 columns * 2 groups = 6 zero points = 24 bits = 3 B; per column 3 -> 2 B.
TEST(ProblemIntensity, RoundsPackedBytesUp) {
  EXPECT_EQ(problem_intensity({1, 3, 5}, kFp4).b_bytes, 8);
  const ProblemIntensity grouped =
      problem_intensity({1, 3, 100}, {WeightFormat::kU4, ScaleMode::kPerGroup, 64, true});
  EXPECT_EQ(grouped.scale_bytes, 2 * 3 * 2);
  EXPECT_EQ(grouped.zero_point_bytes, 3);
  const ProblemIntensity column =
      problem_intensity({1, 3, 100}, {WeightFormat::kU4, ScaleMode::kPerColumn, 0, true});
  EXPECT_EQ(column.scale_bytes, 3 * 2);
  EXPECT_EQ(column.zero_point_bytes, 2);
  EXPECT_THROW(problem_intensity({0, 3, 100}, kFp4), InputError);
  EXPECT_THROW(problem_intensity({1, 3, -1}, kFp4), InputError);
}

// Test machine: 2.56e12 FLOP/s FP16, 1.28e12 FLOP/s matmul, 1e11 B/s: balances 25.6 and 12.8.
TEST(Roofline, MachineFromTheDevice) {
  const RooflineMachine m = roofline_machine(testing::dynamic_device());
  EXPECT_DOUBLE_EQ(m.peak_flops, 2.0 * 4 * 32 * 10 * 1e9);
  EXPECT_DOUBLE_EQ(m.peak_matmul_flops, 1024.0 * 4 / 32 * 10 * 1e9);
  EXPECT_DOUBLE_EQ(m.dram_bytes_per_s, 1e11);
}

// AI 10: memory-bound against both; attainable 10 * 1e11 = 1e12; time max(1e9 / 2.56e12,
// 1e8 / 1e11) = 1e-3 s.
TEST(Roofline, MemoryBound) {
  const Roofline r = roofline(roofline_machine(testing::dynamic_device()), 1e9, 1e8);
  EXPECT_DOUBLE_EQ(r.intensity, 10.0);
  EXPECT_DOUBLE_EQ(r.machine_balance, 25.6);
  EXPECT_DOUBLE_EQ(r.matmul_balance, 12.8);
  EXPECT_EQ(r.bound, Bound::kMemory);
  EXPECT_EQ(r.matmul_bound, Bound::kMemory);
  EXPECT_DOUBLE_EQ(r.attainable_flops, 1e12);
  EXPECT_DOUBLE_EQ(r.attainable_matmul_flops, 1e12);
  EXPECT_DOUBLE_EQ(r.compute_time_s, 1e9 / 2.56e12);
  EXPECT_DOUBLE_EQ(r.memory_time_s, 1e-3);
  EXPECT_DOUBLE_EQ(r.lower_bound_time_s, 1e-3);
}

// AI 20: memory-bound against FP16 (20 < 25.6), compute-bound against matmul (20 >= 12.8).
TEST(Roofline, BetweenTheTwoBalances) {
  const Roofline r = roofline(roofline_machine(testing::dynamic_device()), 2e9, 1e8);
  EXPECT_EQ(r.bound, Bound::kMemory);
  EXPECT_EQ(r.matmul_bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(r.attainable_flops, 2e12);
  EXPECT_DOUBLE_EQ(r.attainable_matmul_flops, 1.28e12);
}

// Exactly at the balance counts as compute-bound; far above it the peak is attainable.
TEST(Roofline, AtAndAboveTheBalance) {
  const RooflineMachine m = roofline_machine(testing::dynamic_device());
  const Roofline at = roofline(m, 2.56e9, 1e8);
  EXPECT_EQ(at.bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(at.attainable_flops, 2.56e12);
  const Roofline high = roofline(m, 1e12, 1e8);
  EXPECT_EQ(high.bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(high.attainable_flops, 2.56e12);
  EXPECT_DOUBLE_EQ(high.lower_bound_time_s, 1e12 / 2.56e12);
}

TEST(Roofline, RejectsBadInput) {
  RooflineMachine m = roofline_machine(testing::dynamic_device());
  EXPECT_THROW(roofline(m, 1e9, 0), InputError);
  EXPECT_THROW(roofline(m, -1, 1e8), InputError);
  m.dram_bytes_per_s = 0;
  EXPECT_THROW(roofline(m, 1e9, 1e8), InputError);
}

}  // namespace
}  // namespace marlin::analytic
