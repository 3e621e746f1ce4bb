// FP4 quantization and packing: hand examples, partial groups, scale rule, error bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/host/e2m1.h"
#include "kernels/host/packed_weights.h"
#include "kernels/host/quantize.h"
#include "kernels/host/test_inputs.h"
#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

TEST(PackFp4Weights, HandExampleOneWord) {
  // absmax 3 -> s = 3 / 6 = 0.5 (exact in FP16). w / s = 6, -6, 0.5, 0.6, 2.5, -3.5, 4.4, 0
  // -> codes 0111, 1111, 0001, 0001 (0.6 -> 0.5), 0100 (2.5 tie -> 2), 1110 (-3.5 tie -> -4),
  //    0110 (4.4 -> 4), 0000.
  const std::vector<float> w = {3.0f, -3.0f, 0.25f, 0.3f, 1.25f, -1.75f, 2.2f, 0.0f};
  const PackedWeights p = pack_fp4_weights(w, 8, 1, 8);
  ASSERT_EQ(p.codes.size(), 1u);
  EXPECT_EQ(p.codes[0], 0x06E411F7u);  // nibbles 7..0 = 0 6 E 4 1 1 F 7
  ASSERT_EQ(p.scales.size(), 1u);
  EXPECT_EQ(static_cast<float>(p.scales[0]), 0.5f);
  const std::vector<float> expected = {3.0f, -3.0f, 0.25f, 0.25f, 1.0f, -2.0f, 2.0f, 0.0f};
  EXPECT_EQ(dequantize(p), expected);
  const std::vector<std::uint8_t> codes = {7, 15, 1, 1, 4, 14, 6, 0};
  EXPECT_EQ(unpack_codes(p), codes);
}

TEST(PackFp4Weights, ScaleIsRoundedUpToFp16) {
  // absmax 1 -> 1 / 6 = 0.1666... = 2^-3 * 1.333...; FP16 mantissa 1024 / 3 = 341.33. The
  // nearest FP16 (mantissa 341, 0.16662598) is below 1/6, so the scale takes mantissa 342:
  // bits (12 << 10) | 342 = 0x3156, value 0.125 * 1366 / 1024 = 0.166748046875.
  // 1 / 0.166748046875 = 5.997 -> code 0111 (6) -> dequantized 6 * 0.166748046875.
  std::vector<float> w(8, 0.0f);
  w[0] = 1.0f;
  const PackedWeights p = pack_fp4_weights(w, 8, 1, 8);
  EXPECT_EQ(half_bits(p.scales[0]), 0x3156);
  EXPECT_EQ(dequantize(p)[0], 1.00048828125f);
  EXPECT_EQ(p.codes[0], 0x00000007u);
}

TEST(PackFp4Weights, AllZeroGroupGetsScaleOne) {
  const std::vector<float> w(16, 0.0f);
  const PackedWeights p = pack_fp4_weights(w, 8, 2, 8);
  EXPECT_EQ(half_bits(p.scales[0]), 0x3C00);  // 1.0
  EXPECT_EQ(half_bits(p.scales[1]), 0x3C00);
  EXPECT_EQ(p.codes, (std::vector<std::uint32_t>{0, 0}));
  EXPECT_EQ(dequantize(p), w);
}

TEST(PackFp4Weights, PartialLastGroupUsesOnlyItsOwnRows) {
  // K = 40, group 32: group 0 = rows 0..31, group 1 = rows 32..39 (partial).
  // Column 0: 12 in group 0 (s = 12 / 6 = 2), 0.75 max in group 1 (s = 0.125).
  // Column 1: 3 in group 0 (s = 0.5), group 1 all zero (s = 1).
  std::vector<float> w(80, 0.0f);
  w[0 * 2 + 0] = 12.0f;
  w[5 * 2 + 0] = -7.0f;  // -7 / 2 = -3.5 -> tie -> -4 -> -8
  w[33 * 2 + 0] = -0.75f;
  w[39 * 2 + 0] = 0.3f;  // 0.3 / 0.125 = 2.4 -> 2 -> 0.25
  w[10 * 2 + 1] = 3.0f;
  const PackedWeights p = pack_fp4_weights(w, 40, 2, 32);
  ASSERT_EQ(p.scales.size(), 4u);  // [2 groups][2 columns]
  EXPECT_EQ(static_cast<float>(p.scales[0]), 2.0f);
  EXPECT_EQ(static_cast<float>(p.scales[1]), 0.5f);
  EXPECT_EQ(static_cast<float>(p.scales[2]), 0.125f);
  EXPECT_EQ(static_cast<float>(p.scales[3]), 1.0f);
  ASSERT_EQ(p.codes.size(), 10u);  // [5 packed rows][2 columns]
  const std::vector<float> d = dequantize(p);
  EXPECT_EQ(d[0 * 2 + 0], 12.0f);
  EXPECT_EQ(d[5 * 2 + 0], -8.0f);
  EXPECT_EQ(d[33 * 2 + 0], -0.75f);
  EXPECT_EQ(d[39 * 2 + 0], 0.25f);
  EXPECT_EQ(d[10 * 2 + 1], 3.0f);
}

TEST(PackFp4Weights, PerColumnWithRaggedK) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  RandomInputs random(seed);
  const std::vector<float> w = random.normal_float(20 * 3);
  const PackedWeights p = pack_fp4_weights(w, 20, 3, kPerColumnGroup);
  EXPECT_EQ(p.scales.size(), 3u);  // one group of all 20 rows per column
  ASSERT_EQ(p.codes.size(), 9u);   // ceil(20 / 8) = 3 packed rows
  for (int j = 0; j < 3; ++j) {
    // Rows 16..19 use nibbles 0..3 of the last word; nibbles 4..7 are padding (code 0).
    EXPECT_EQ(p.codes[static_cast<std::size_t>(2 * 3 + j)] >> 16, 0u) << j;
  }
}

// Spacing of E2M1 magnitudes around |x| in [0, 6]: 0.5 below 2, 1 in [2, 4), 2 in [4, 6].
double e2m1_step(double x) {
  const double a = std::fabs(x);
  if (a < 2.0) return 0.5;
  if (a < 4.0) return 1.0;
  return 2.0;
}

TEST(PackFp4Weights, RandomErrorWithinHalfAStepTimesScale) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  RandomInputs random(seed);
  for (const int group : {32, 64, 128, kPerColumnGroup}) {
    for (const std::int64_t k : {1, 7, 100, 256, 300}) {
      const std::int64_t n = random.uniform_int(1, 9);
      const std::vector<float> w = random.normal_float(k * n, 0.02);
      const PackedWeights p = pack_fp4_weights(w, k, n, group);
      const std::vector<float> d = dequantize(p);
      const std::int64_t g = group == kPerColumnGroup ? k : group;
      for (std::int64_t j = 0; j < n; ++j) {
        for (std::int64_t begin = 0; begin < k; begin += g) {
          const std::int64_t end = std::min(k, begin + g);
          double absmax = 0.0;
          for (std::int64_t r = begin; r < end; ++r) {
            absmax = std::max(absmax, std::fabs(static_cast<double>(w[r * n + j])));
          }
          const Half s = p.scales[static_cast<std::size_t>((begin / g) * n + j)];
          const double scale = static_cast<double>(s);
          // Smallest FP16 >= absmax / 6: s is at least that, the FP16 just below is not.
          ASSERT_GT(absmax, 0.0);
          ASSERT_GE(6.0 * scale, absmax);
          const auto below = static_cast<std::uint16_t>(half_bits(s) - 1);
          ASSERT_LT(6.0 * static_cast<double>(half_from_bits(below)), absmax);
          for (std::int64_t r = begin; r < end; ++r) {
            const double x = w[r * n + j] / scale;
            const double error = std::fabs(static_cast<double>(w[r * n + j]) - d[r * n + j]);
            ASSERT_LE(error, 0.5 * e2m1_step(x) * scale * (1.0 + 1e-12))
                << "group=" << group << " k=" << k << " r=" << r << " j=" << j;
          }
        }
      }
    }
  }
}

TEST(PackFp4Weights, BadInputThrows) {
  std::vector<float> w(16, 1.0f);
  EXPECT_THROW(pack_fp4_weights(w, 8, 2, 12), InputError);  // group not a multiple of 8
  EXPECT_THROW(pack_fp4_weights(w, 8, 3, 8), InputError);   // 16 values for 8 x 3
  EXPECT_THROW(pack_fp4_weights(w, 0, 2, 8), InputError);
  w[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(pack_fp4_weights(w, 8, 2, 8), InputError);
  w[3] = std::numeric_limits<float>::infinity();
  EXPECT_THROW(pack_fp4_weights(w, 8, 2, 8), InputError);
  w[3] = 1e6f;  // 1e6 / 6 > 65504: the scale does not fit FP16
  EXPECT_THROW(pack_fp4_weights(w, 8, 2, 8), InputError);
}

// A matrix large enough to be quantized in two halves of columns on two threads gives, column
// by column, the codes and scales of quantizing that column alone.
TEST(QuantizeWeights, LargeMatricesMatchColumnByColumn) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  RandomInputs random(seed);
  const std::int64_t k = 256;
  const std::int64_t n = 4099;  // k x n above 2^20 weights, odd halves
  const std::vector<float> w = random.normal_float(k * n, 0.5);
  for (const WeightFormat format : {WeightFormat{WeightFormatKind::kFp4E2M1, 32},
                                    WeightFormat{WeightFormatKind::kU4ZeroPoint, 64}}) {
    const PackedWeights whole = quantize_weights(w, k, n, format);
    const std::vector<std::uint8_t> codes = unpack_codes(whole);
    const std::vector<std::uint8_t> zeros = unpack_zero_points(whole);
    const std::int64_t groups = format.group_count(k);
    for (std::int64_t j = 0; j < n; j += 37) {
      std::vector<float> column(static_cast<std::size_t>(k));
      for (std::int64_t r = 0; r < k; ++r) column[r] = w[r * n + j];
      const PackedWeights alone = quantize_weights(column, k, 1, format);
      const std::vector<std::uint8_t> alone_codes = unpack_codes(alone);
      const std::vector<std::uint8_t> alone_zeros = unpack_zero_points(alone);
      for (std::int64_t r = 0; r < k; ++r)
        ASSERT_EQ(codes[r * n + j], alone_codes[r]) << r << ", " << j;
      for (std::int64_t g = 0; g < groups; ++g) {
        ASSERT_EQ(half_bits(whole.scales[g * n + j]), half_bits(alone.scales[g])) << g << ", " << j;
        if (!zeros.empty()) {
          ASSERT_EQ(zeros[g * n + j], alone_zeros[g]) << g << ", " << j;
        }
      }
    }
  }
}

// With scales out of FP16's range in both halves of a large matrix, the error names the first
// one a pass over groups, then columns, meets: group 0 of a right-half column.
TEST(QuantizeWeights, LargeMatricesReportTheFirstBadScale) {
  const std::int64_t k = 256;
  const std::int64_t n = 4096;
  std::vector<float> w(static_cast<std::size_t>(k * n), 0.25f);
  w[static_cast<std::size_t>(200 * n + 10)] = 2e6f;  // group 6 (rows 192-223), left half
  w[static_cast<std::size_t>(5 * n + 3000)] = 1e6f;  // group 0, right half
  try {
    pack_fp4_weights(w, k, n, 32);
    FAIL() << "no InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(std::to_string(1e6 / 6.0)), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace marlin::kernels
