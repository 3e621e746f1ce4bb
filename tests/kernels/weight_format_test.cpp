// WeightFormat: sizes of each layout, bits per weight, names and validation.
#include "kernels/host/weight_format.h"

#include <gtest/gtest.h>

#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

TEST(WeightFormat, Fp4Group128On4096Square) {
  const WeightFormat f{WeightFormatKind::kFp4E2M1, 128};
  // codes: 4096 / 8 = 512 rows of 4096 uint32 = 512 * 4096 * 4 bytes
  EXPECT_EQ(f.weight_bytes(4096, 4096), 8388608);
  // scales: 4096 / 128 = 32 rows of 4096 halves = 32 * 4096 * 2 bytes
  EXPECT_EQ(f.scale_bytes(4096, 4096), 262144);
  EXPECT_EQ(f.zero_point_bytes(4096, 4096), 0);
  // 4 bits + 16 bits / 128 = 4.125
  EXPECT_DOUBLE_EQ(f.bits_per_weight(4096, 4096), 4.125);
  EXPECT_EQ(f.code_bits(), 4);
  EXPECT_EQ(f.codes_per_word(), 8);
  EXPECT_EQ(f.name(), "fp4_e2m1/g128");
}

TEST(WeightFormat, U4ZeroPointAddsHalfAByteOfZerosPerGroup) {
  const WeightFormat f{WeightFormatKind::kU4ZeroPoint, 128};
  // zeros: 32 groups x (4096 / 8 = 512) words x 4 bytes
  EXPECT_EQ(f.zero_point_bytes(4096, 4096), 65536);
  // 4 + 16/128 + 4/128 = 4.15625
  EXPECT_DOUBLE_EQ(f.bits_per_weight(4096, 4096), 4.15625);
  EXPECT_TRUE(f.has_zero_points());
  EXPECT_EQ(f.name(), "u4_zp/g128");
}

TEST(WeightFormat, Int8PerColumn) {
  const WeightFormat f{WeightFormatKind::kInt8, kPerColumnGroup};
  EXPECT_EQ(f.codes_per_word(), 4);
  EXPECT_EQ(f.packed_rows(4096), 1024);
  EXPECT_EQ(f.group_count(4096), 1);
  EXPECT_EQ(f.weight_bytes(4096, 4096), 16777216);              // 1024 * 4096 * 4
  EXPECT_EQ(f.scale_bytes(4096, 4096), 8192);                   // 1 * 4096 * 2
  EXPECT_DOUBLE_EQ(f.bits_per_weight(4096, 4096), 8.00390625);  // 8 + 16 / 4096
  EXPECT_EQ(f.name(), "int8/per_column");
}

TEST(WeightFormat, RaggedShapesRoundUp) {
  const WeightFormat f{WeightFormatKind::kU4B8, 32};
  EXPECT_EQ(f.packed_rows(100), 13);       // ceil(100 / 8)
  EXPECT_EQ(f.group_count(100), 4);        // ceil(100 / 32), last group has 4 rows
  EXPECT_EQ(f.weight_bytes(100, 3), 156);  // 13 * 3 * 4
  EXPECT_EQ(f.scale_bytes(100, 3), 24);    // 4 * 3 * 2
  const WeightFormat zp{WeightFormatKind::kU4ZeroPoint, 32};
  EXPECT_EQ(zp.zero_point_bytes(100, 9), 32);  // 4 groups * ceil(9 / 8) = 2 words * 4 bytes
}

TEST(WeightFormat, Fp16IsUnpacked) {
  const WeightFormat f{WeightFormatKind::kFp16, kPerColumnGroup};
  EXPECT_EQ(f.weight_bytes(64, 32), 4096);  // 2 * 64 * 32
  EXPECT_EQ(f.scale_bytes(64, 32), 0);
  EXPECT_DOUBLE_EQ(f.bits_per_weight(64, 32), 16.0);
  EXPECT_EQ(f.name(), "fp16");
}

TEST(WeightFormat, ValidateRejectsBadGroupSizes) {
  EXPECT_THROW((WeightFormat{WeightFormatKind::kFp4E2M1, 12}.validate()), InputError);
  EXPECT_THROW((WeightFormat{WeightFormatKind::kFp4E2M1, 0}.validate()), InputError);
  EXPECT_THROW((WeightFormat{WeightFormatKind::kU4B8, -2}.validate()), InputError);
  EXPECT_NO_THROW((WeightFormat{WeightFormatKind::kU4B8, 32}.validate()));
  EXPECT_NO_THROW((WeightFormat{WeightFormatKind::kInt8, kPerColumnGroup}.validate()));
}

}  // namespace
}  // namespace marlin::kernels
