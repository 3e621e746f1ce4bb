// PackedWeights: assembling from explicit codes, validation, per-code dequantization.
#include "kernels/host/packed_weights.h"

#include <gtest/gtest.h>

#include <vector>

#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

TEST(DequantizeCode, EachKind) {
  // FP4 1101: S=1 E=2 M=1 -> -3; times 0.5 -> -1.5
  EXPECT_EQ(dequantize_code(WeightFormatKind::kFp4E2M1, 0b1101, 0.5f, 0), -1.5f);
  // U4B8 3: (3 - 8) * 2 = -10
  EXPECT_EQ(dequantize_code(WeightFormatKind::kU4B8, 3, 2.0f, 0), -10.0f);
  // U4 zero point 5: (3 - 5) * 0.25 = -0.5
  EXPECT_EQ(dequantize_code(WeightFormatKind::kU4ZeroPoint, 3, 0.25f, 5), -0.5f);
  // INT8 0xFE = -2: -2 * 3 = -6
  EXPECT_EQ(dequantize_code(WeightFormatKind::kInt8, 0xFE, 3.0f, 0), -6.0f);
}

// U4 zero point, K = 9 (ragged), N = 2, group 8: 2 groups; the second holds row 8 only.
struct ZeroPointExample {
  WeightFormat format{WeightFormatKind::kU4ZeroPoint, 8};
  std::vector<std::uint8_t> codes = std::vector<std::uint8_t>(18);
  std::vector<Half> scales = {Half(1.0f), Half(0.5f), Half(2.0f), Half(0.25f)};
  std::vector<std::uint8_t> zeros = {4, 12, 8, 0};
  ZeroPointExample() {
    for (int r = 0; r < 9; ++r) {
      codes[r * 2 + 0] = static_cast<std::uint8_t>(r);
      codes[r * 2 + 1] = static_cast<std::uint8_t>(15 - r);
    }
  }
  PackedWeights packed() const { return make_packed_weights(format, 9, 2, codes, scales, zeros); }
};

TEST(MakePackedWeights, ExplicitCodesScalesAndZeros) {
  const ZeroPointExample example;
  const std::vector<std::uint8_t>& codes = example.codes;
  const std::vector<std::uint8_t>& zeros = example.zeros;
  const PackedWeights p = example.packed();
  EXPECT_EQ(p.codes.size(), 4u);  // ceil(9 / 8) = 2 packed rows x 2 columns
  EXPECT_EQ(p.codes[0], 0x76543210u);
  EXPECT_EQ(p.codes[1], 0x89ABCDEFu);
  EXPECT_EQ(p.codes[2], 0x00000008u);
  EXPECT_EQ(p.codes[3], 0x00000007u);
  EXPECT_EQ(p.zero_points, (std::vector<std::uint32_t>{0xC4u, 0x08u}));
  EXPECT_EQ(unpack_codes(p), codes);
  EXPECT_EQ(unpack_zero_points(p), zeros);
  const std::vector<float> d = dequantize(p);
  EXPECT_EQ(d[0 * 2 + 0], -4.0f);  // (0 - 4) * 1
  EXPECT_EQ(d[7 * 2 + 1], -2.0f);  // (8 - 12) * 0.5
  EXPECT_EQ(d[8 * 2 + 0], 0.0f);   // (8 - 8) * 2
  EXPECT_EQ(d[8 * 2 + 1], 1.75f);  // (7 - 0) * 0.25
}

TEST(MakePackedWeights, RejectsInconsistentArrays) {
  const WeightFormat fp4{WeightFormatKind::kFp4E2M1, 8};
  const std::vector<std::uint8_t> codes(16, 0);
  const std::vector<Half> one_scale = {Half(1.0f)};
  const std::vector<Half> two_scales = {Half(1.0f), Half(1.0f)};
  const std::vector<std::uint8_t> zeros = {0, 0};
  EXPECT_NO_THROW(make_packed_weights(fp4, 8, 2, codes, two_scales));
  EXPECT_THROW(make_packed_weights(fp4, 8, 2, codes, one_scale), InputError);
  EXPECT_THROW(make_packed_weights(fp4, 8, 2, codes, two_scales, zeros), InputError);
  const WeightFormat zp{WeightFormatKind::kU4ZeroPoint, 8};
  EXPECT_THROW(make_packed_weights(zp, 8, 2, codes, two_scales), InputError);  // zeros missing
  const WeightFormat fp16{WeightFormatKind::kFp16, kPerColumnGroup};
  EXPECT_THROW(make_packed_weights(fp16, 8, 2, codes, two_scales), InputError);
}

TEST(PackedWeights, ValidateCatchesResizedArrays) {
  const WeightFormat fp4{WeightFormatKind::kFp4E2M1, kPerColumnGroup};
  const std::vector<std::uint8_t> codes(24, 1);
  const std::vector<Half> scales = {Half(1.0f), Half(1.0f)};
  PackedWeights p = make_packed_weights(fp4, 12, 2, codes, scales);
  EXPECT_NO_THROW(p.validate());
  p.codes.pop_back();
  EXPECT_THROW(p.validate(), InputError);
  EXPECT_THROW(dequantize(p), InputError);
}

TEST(WidenColumns, KeepsTheColumnsAndAddsZeros) {
  // The U4 zero-point weights of MakePackedWeights (K = 9, N = 2) widened to 11 columns: two
  // zero-point words per group row instead of one.
  const ZeroPointExample example;
  const std::vector<std::uint8_t>& codes = example.codes;
  const std::vector<Half>& scales = example.scales;
  const std::vector<std::uint8_t>& zeros = example.zeros;
  const PackedWeights wide = widen_columns(example.packed(), 11);
  EXPECT_EQ(wide.n, 11);
  const std::vector<std::uint8_t> wide_codes = unpack_codes(wide);
  const std::vector<std::uint8_t> wide_zeros = unpack_zero_points(wide);
  for (int r = 0; r < 9; ++r) {
    for (int j = 0; j < 11; ++j) {
      EXPECT_EQ(wide_codes[r * 11 + j], j < 2 ? codes[r * 2 + j] : 0) << r << ", " << j;
    }
  }
  for (int g = 0; g < 2; ++g) {
    for (int j = 0; j < 11; ++j) {
      EXPECT_EQ(wide_zeros[g * 11 + j], j < 2 ? zeros[g * 2 + j] : 0) << g << ", " << j;
      EXPECT_EQ(static_cast<float>(wide.scales[g * 11 + j]),
                j < 2 ? static_cast<float>(scales[g * 2 + j]) : 0.0f);
    }
  }
  const std::vector<float> d = dequantize(wide);
  EXPECT_EQ(d[0 * 11 + 0], -4.0f);  // (0 - 4) * 1
  EXPECT_EQ(d[7 * 11 + 1], -2.0f);  // (8 - 12) * 0.5
  EXPECT_EQ(d[8 * 11 + 1], 1.75f);  // (7 - 0) * 0.25
  for (int r = 0; r < 9; ++r) {
    for (int j = 2; j < 11; ++j) EXPECT_EQ(d[r * 11 + j], 0.0f) << r << ", " << j;
  }
}

TEST(WidenColumns, RejectsFewerColumns) {
  const WeightFormat fp4{WeightFormatKind::kFp4E2M1, kPerColumnGroup};
  const std::vector<std::uint8_t> codes(24, 1);
  const std::vector<Half> scales = {Half(1.0f), Half(1.0f)};
  const PackedWeights p = make_packed_weights(fp4, 12, 2, codes, scales);
  EXPECT_EQ(widen_columns(p, 2).codes, p.codes);
  EXPECT_THROW(widen_columns(p, 1), InputError);
}

}  // namespace
}  // namespace marlin::kernels
