// U4B8, U4 with zero points, and INT8: hand-computed examples, clamping, random error bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/host/packed_weights.h"
#include "kernels/host/quantize.h"
#include "kernels/host/test_inputs.h"
#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

// Interleaves two columns of 16 rows into a row-major 16 x 2 matrix.
std::vector<float> two_columns(const std::vector<float>& c0, const std::vector<float>& c1) {
  std::vector<float> w;
  for (std::size_t r = 0; r < c0.size(); ++r) {
    w.push_back(c0[r]);
    w.push_back(c1[r]);
  }
  return w;
}

TEST(QuantizeU4B8, HandExample16x2) {
  // Column 0: absmax 7.5 -> s = 7.5 / 7.5 = 1; q = rne(w) + 8.
  //   -7.5->0 (tie to -8) 7->15 0.5->8 (tie to 0) 1.5->10 (tie to 2) 2.5->10 (tie to 2)
  //   -0.5->8 -1.5->6 3.2->11 | -3.7->4 6.4->14 0->8 1->9 -1->7 4.5->12 -2.5->6 5.5->14
  // Column 1: absmax 3.75 -> s = 0.5; w / s = 7.5 -7 0.4 0.5 1.5 -0.6 2 -2.5 | 4 0 ... 0 0.2
  //   -> q = 15 (7.5 tie to 8 -> 16, clamped) 1 8 8 10 7 10 6 | 12 8 8 8 8 8 8 8
  const std::vector<float> c0 = {-7.5, 7,   0.5, 1.5, 2.5, -0.5, -1.5, 3.2,
                                 -3.7, 6.4, 0,   1,   -1,  4.5,  -2.5, 5.5};
  const std::vector<float> c1 = {3.75, -3.5, 0.2, 0.25, 0.75, -0.3, 1.0, -1.25,
                                 2.0,  0,    0,   0,    0,    0,    0,   0.1};
  const PackedWeights p = quantize_u4b8(two_columns(c0, c1), 16, 2, 16);
  // Words [packed row][column], nibbles LSB first:
  //   [0][0] q 0 F 8 A A 8 6 B -> 0xB68AA8F0    [0][1] q F 1 8 8 A 7 A 6 -> 0x6A7A881F
  //   [1][0] q 4 E 8 9 7 C 6 E -> 0xE6C798E4    [1][1] q C 8 8 8 8 8 8 8 -> 0x8888888C
  const std::vector<std::uint32_t> words = {0xB68AA8F0u, 0x6A7A881Fu, 0xE6C798E4u, 0x8888888Cu};
  EXPECT_EQ(p.codes, words);
  ASSERT_EQ(p.scales.size(), 2u);
  EXPECT_EQ(static_cast<float>(p.scales[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(p.scales[1]), 0.5f);
  EXPECT_TRUE(p.zero_points.empty());
  // (q - 8) * s; the two extremes -7.5 and 3.75 are off by exactly half a step.
  const std::vector<float> d0 = {-8, 7, 0, 2, 2, 0, -2, 3, -4, 6, 0, 1, -1, 4, -2, 6};
  const std::vector<float> d1 = {3.5, -3.5, 0, 0, 1, -0.5, 1, -1, 2, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(dequantize(p), two_columns(d0, d1));
}

TEST(QuantizeU4ZeroPoint, HandExample16x2) {
  // Group 8, so 2 groups per column.
  // c0 g0: lo 0, hi 7.5 -> s = 7.5 / 15 = 0.5, z = 0; q = rne(w / 0.5):
  //   0 3 6 9 12 15 1 (1.4) 4 (4.4)
  // c0 g1: lo -1.5, hi 6 -> s = 7.5 / 15 = 0.5, z = rne(3) = 3; q = rne(w / 0.5) + 3:
  //   0 1 3 3 (0.5 tie to 0) 5 (1.5 tie to 2) 15 8 (5.2) 3 (-0.4)
  // c1 g0: lo -7.5, hi 0 -> s = 0.5, z = 15; q = rne(w / 0.5) + 15:
  //   11 0 13 14 9 15 (-0.2) 10 13 (-2.5 tie to -2)
  // c1 g1: all zero -> s = 1, z = 0, q = 0.
  const std::vector<float> c0 = {0,    1.5, 3, 4.5,  6,    7.5, 0.7, 2.2,
                                 -1.5, -1,  0, 0.25, 0.75, 6,   2.6, -0.2};
  const std::vector<float> c1 = {-2, -7.5, -1, -0.5, -3, -0.1, -2.5, -1.25, 0, 0, 0, 0, 0, 0, 0, 0};
  const PackedWeights p = quantize_u4_zero_point(two_columns(c0, c1), 16, 2, 8);
  //   [0][0] q 0 3 6 9 C F 1 4 -> 0x41FC9630    [0][1] q B 0 D E 9 F A D -> 0xDAF9ED0B
  //   [1][0] q 0 1 3 3 5 F 8 3 -> 0x38F53310    [1][1] 0
  const std::vector<std::uint32_t> words = {0x41FC9630u, 0xDAF9ED0Bu, 0x38F53310u, 0u};
  EXPECT_EQ(p.codes, words);
  const std::vector<float> scales = {0.5f, 0.5f, 0.5f, 1.0f};  // [group][column]
  ASSERT_EQ(p.scales.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(static_cast<float>(p.scales[i]), scales[i]) << i;
  // Zero points [group][ceil(2 / 8) = 1 word]: g0 = {0, 15} -> 0xF0, g1 = {3, 0} -> 0x03.
  EXPECT_EQ(p.zero_points, (std::vector<std::uint32_t>{0xF0u, 0x03u}));
  EXPECT_EQ(unpack_zero_points(p), (std::vector<std::uint8_t>{0, 15, 3, 0}));
  // (q - z) * s
  const std::vector<float> d0 = {0, 1.5, 3, 4.5, 6, 7.5, 0.5, 2, -1.5, -1, 0, 0, 1, 6, 2.5, 0};
  const std::vector<float> d1 = {-2, -7.5, -1, -0.5, -3, 0, -2.5, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(dequantize(p), two_columns(d0, d1));
}

TEST(QuantizeU4ZeroPoint, UpperClampStaysWithinHalfAStep) {
  // lo -1.5, hi 13.5 -> s = 15 / 15 = 1, z = rne(1.5) = 2 (tie to even).
  // 13.5 -> rne 14 (tie to even) + 2 = 16 -> clamped to 15 -> (15 - 2) * 1 = 13, error 0.5.
  // -1.5 -> rne -2 + 2 = 0 -> (0 - 2) * 1 = -2, error 0.5. 0 -> q = 2 -> 0.
  const std::vector<float> w = {-1.5f, 13.5f, 0, 0, 0, 0, 0, 0};
  const PackedWeights p = quantize_u4_zero_point(w, 8, 1, 8);
  EXPECT_EQ(unpack_zero_points(p), std::vector<std::uint8_t>{2});
  EXPECT_EQ(unpack_codes(p), (std::vector<std::uint8_t>{0, 15, 2, 2, 2, 2, 2, 2}));
  EXPECT_EQ(dequantize(p), (std::vector<float>{-2, 13, 0, 0, 0, 0, 0, 0}));
}

TEST(QuantizeInt8, HandExample) {
  // absmax 127 -> s = 1; q = rne(w): 127 -127 0 (0.5 tie) 2 (1.5 tie) 0 (-0.5 tie) -2 (-2.5
  // tie) 64 -100. Bytes 7F 81 00 02 | 00 FE 40 9C, 4 per word along K, LSB first.
  const std::vector<float> w = {127, -127, 0.5, 1.5, -0.5, -2.5, 63.7, -100.2};
  const PackedWeights p = quantize_int8(w, 8, 1, 8);
  EXPECT_EQ(p.codes, (std::vector<std::uint32_t>{0x0200817Fu, 0x9C40FE00u}));
  EXPECT_EQ(static_cast<float>(p.scales[0]), 1.0f);
  EXPECT_EQ(dequantize(p), (std::vector<float>{127, -127, 0, 2, 0, -2, 64, -100}));
}

// Checks |w - dequant| <= s / 2 for every element of a random matrix, and the scale rule.
void check_integer_format(WeightFormatKind kind, double levels, std::uint64_t seed) {
  SCOPED_TRACE(seed_message(seed));
  RandomInputs random(seed);
  for (const int group : {32, 64, 128, kPerColumnGroup}) {
    for (const std::int64_t k : {1, 9, 100, 256, 257}) {
      const std::int64_t n = random.uniform_int(1, 9);
      // Shifted normal data so that zero-point groups are asymmetric.
      std::vector<float> w = random.normal_float(k * n, 0.05);
      for (float& v : w) v += 0.03f;
      const PackedWeights p = quantize_weights(w, k, n, {kind, group});
      const std::vector<float> d = dequantize(p);
      const std::int64_t g = group == kPerColumnGroup ? k : group;
      for (std::int64_t j = 0; j < n; ++j) {
        for (std::int64_t begin = 0; begin < k; begin += g) {
          const std::int64_t end = std::min(k, begin + g);
          double lo = 0.0;
          double hi = 0.0;
          for (std::int64_t r = begin; r < end; ++r) {
            lo = std::min(lo, static_cast<double>(w[r * n + j]));
            hi = std::max(hi, static_cast<double>(w[r * n + j]));
          }
          const double range = kind == WeightFormatKind::kU4ZeroPoint ? hi - lo : std::max(-lo, hi);
          const Half scale = p.scales[(begin / g) * n + j];
          const double s = static_cast<double>(scale);
          // s is the smallest FP16 with s * levels >= range: the one below it is too small.
          ASSERT_GT(range, 0.0);
          ASSERT_GE(s * levels, range);
          const auto below = static_cast<std::uint16_t>(half_bits(scale) - 1);
          ASSERT_LT(static_cast<double>(half_from_bits(below)) * levels, range);
          for (std::int64_t r = begin; r < end; ++r) {
            const double error = std::fabs(static_cast<double>(w[r * n + j]) - d[r * n + j]);
            ASSERT_LE(error, 0.5 * s * (1.0 + 1e-12))
                << "group=" << group << " k=" << k << " r=" << r << " j=" << j;
          }
        }
      }
    }
  }
}

TEST(QuantizeU4B8, RandomErrorWithinHalfAStep) {
  check_integer_format(WeightFormatKind::kU4B8, 7.5, fresh_seed());
}

TEST(QuantizeU4ZeroPoint, RandomErrorWithinHalfAStep) {
  check_integer_format(WeightFormatKind::kU4ZeroPoint, 15.0, fresh_seed());
}

TEST(QuantizeInt8, RandomErrorWithinHalfAStep) {
  check_integer_format(WeightFormatKind::kInt8, 127.0, fresh_seed());
}

TEST(QuantizeWeights, Fp16IsNotAQuantizedFormat) {
  const std::vector<float> w(8, 1.0f);
  EXPECT_THROW(quantize_weights(w, 8, 1, {WeightFormatKind::kFp16, kPerColumnGroup}), InputError);
}

}  // namespace
}  // namespace marlin::kernels
