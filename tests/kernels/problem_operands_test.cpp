// The operands `run` draws: the whole problem, or the rows of A and columns of W a sampled
// run's slice reads, the rest zero.
#include "kernels/launch/problem_operands.h"

#include <gtest/gtest.h>

#include "kernels/host/packed_weights.h"
#include "kernels/host/quantize.h"
#include "kernels/host/test_inputs.h"

namespace marlin::kernels {
namespace {

const WeightFormat kFp4{WeightFormatKind::kFp4E2M1, 32};

TEST(ProblemOperands, RegionKeepsTheRowsOfAFullDrawAndZeroesTheRest) {
  const GemmProblem p{.m = 24, .n = 40, .k = 64};
  const ProblemOperands whole(p, kFp4, 7);
  const ProblemOperands part(p, kFp4, 7, 8, 16);
  ASSERT_EQ(part.a.size(), whole.a.size());
  for (std::size_t i = 0; i < part.a.size(); ++i) {
    // Rows 0..7 of A (8 x 64 values) are the first values drawn either way.
    const float expected = i < 8 * 64 ? static_cast<float>(whole.a[i]) : 0.0f;
    EXPECT_EQ(static_cast<float>(part.a[i]), expected) << i;
  }
}

TEST(ProblemOperands, RegionDrawsOnlyItsWeightColumns) {
  const GemmProblem p{.m = 24, .n = 40, .k = 64};
  const ProblemOperands part(p, kFp4, 7, 8, 16);
  ASSERT_EQ(part.operands.weights, &part.packed);
  EXPECT_EQ(part.packed.k, 64);
  EXPECT_EQ(part.packed.n, 40);
  const std::vector<float> w = dequantize(part.packed);
  int drawn_nonzero = 0;
  for (std::int64_t r = 0; r < 64; ++r) {
    for (std::int64_t j = 0; j < 40; ++j) {
      const float value = w[static_cast<std::size_t>(r * 40 + j)];
      if (j >= 16) {
        EXPECT_EQ(value, 0.0f) << r << ", " << j;
      } else if (value != 0.0f) {
        ++drawn_nonzero;
      }
    }
  }
  // Normal draws of standard deviation 0.5 in FP4: most of the 1,024 are nonzero.
  EXPECT_GT(drawn_nonzero, 512);
}

// The weights are drawn and quantized a few rows at a time: the same as quantizing one draw of
// all of W after A's. 4,192 x 1,024 weights take two calls of the row source, the last with a
// partial group of 96 rows.
TEST(ProblemOperands, WeightsDrawnByRowsAreThoseOfOneDraw) {
  const GemmProblem p{.m = 8, .n = 1024, .k = 4192};
  const WeightFormat format{WeightFormatKind::kU4ZeroPoint, 128};
  ASSERT_LT(weight_rows_per_call(p.k, p.n, format), p.k);
  const ProblemOperands drawn(p, format, 11);
  RandomInputs random(11);
  (void)random.uniform_half(p.m * p.k);
  const PackedWeights expected =
      quantize_weights(random.normal_float(p.k * p.n, 0.5), p.k, p.n, format);
  EXPECT_TRUE(drawn.packed.codes == expected.codes);
  EXPECT_TRUE(drawn.packed.scales == expected.scales);
  EXPECT_TRUE(drawn.packed.zero_points == expected.zero_points);
}

TEST(ProblemOperands, Fp16WeightsAreWidenedLikeThePackedOnes) {
  const GemmProblem p{.m = 4, .n = 12, .k = 8};
  const WeightFormat fp16{WeightFormatKind::kFp16, kPerColumnGroup};
  const ProblemOperands part(p, fp16, 3, 4, 5);
  ASSERT_EQ(part.b.size(), 8u * 12u);
  for (std::size_t i = 0; i < part.b.size(); ++i) {
    if (i % 12 >= 5) {
      EXPECT_EQ(static_cast<float>(part.b[i]), 0.0f) << i;
    }
  }
  EXPECT_EQ(part.dense.size(), part.b.size());
}

}  // namespace
}  // namespace marlin::kernels
