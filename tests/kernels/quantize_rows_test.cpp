// quantize_weight_rows(): weights quantized as they arrive, a few rows at a time, give what
// quantize_weights() gives for the whole matrix, in every format and group layout.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "kernels/host/packed_weights.h"
#include "kernels/host/quantize.h"
#include "kernels/host/test_inputs.h"
#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

// A source handing out the rows of `w` (k x n) in order, recording how many rows each call
// took.
struct RowsOf {
  const std::vector<float>& w;
  std::int64_t n;
  std::vector<std::int64_t> calls;
  std::size_t next = 0;

  void operator()(std::span<float> rows) {
    ASSERT_EQ(rows.size() % static_cast<std::size_t>(n), 0u);
    ASSERT_LE(next + rows.size(), w.size());
    std::copy(w.begin() + static_cast<std::ptrdiff_t>(next),
              w.begin() + static_cast<std::ptrdiff_t>(next + rows.size()), rows.begin());
    next += rows.size();
    calls.push_back(static_cast<std::int64_t>(rows.size()) / n);
  }
};

void expect_same(const PackedWeights& got, const PackedWeights& expected) {
  EXPECT_EQ(got.k, expected.k);
  EXPECT_EQ(got.n, expected.n);
  EXPECT_TRUE(got.codes == expected.codes);
  EXPECT_TRUE(got.scales == expected.scales);
  EXPECT_TRUE(got.zero_points == expected.zero_points);
}

// n = 64 columns and K past 2^22 / 64 = 65,536 rows: more than one call in every grouped
// format, and K ends in a partial group of 40 rows.
TEST(QuantizeWeightRows, SameAsTheWholeMatrixAcrossCalls) {
  const std::int64_t k = 65'536 + 40;
  const std::int64_t n = 64;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  const std::vector<float> w = RandomInputs(seed).normal_float(k * n);
  for (const WeightFormat format :
       {WeightFormat{WeightFormatKind::kFp4E2M1, 128}, WeightFormat{WeightFormatKind::kU4B8, 32},
        WeightFormat{WeightFormatKind::kU4ZeroPoint, 64},
        WeightFormat{WeightFormatKind::kInt8, kPerColumnGroup}}) {
    SCOPED_TRACE(format.name());
    RowsOf source{w, n, {}};
    const PackedWeights got =
        quantize_weight_rows(k, n, format, [&](std::span<float> rows) { source(rows); });
    expect_same(got, quantize_weights(w, k, n, format));
    // Every call but the last takes the same whole, even number of groups of rows.
    const std::int64_t group = format.group_size == kPerColumnGroup ? k : format.group_size;
    const std::int64_t step = weight_rows_per_call(k, n, format);
    std::int64_t total = 0;
    for (std::size_t i = 0; i < source.calls.size(); ++i) {
      total += source.calls[i];
      if (i + 1 < source.calls.size()) {
        EXPECT_EQ(source.calls[i], step) << i;
        EXPECT_EQ(step % (2 * group), 0) << i;
      }
    }
    EXPECT_EQ(total, k);
    if (format.group_size == kPerColumnGroup) {
      EXPECT_EQ(source.calls.size(), 1u);  // a column's one group needs all of K
    } else {
      EXPECT_GE(source.calls.size(), 2u);
      EXPECT_LE(step * n, kWeightRowValues);
    }
  }
}

// A group of rows larger than the values asked for at once still arrives whole.
TEST(QuantizeWeightRows, GroupsLargerThanTheBudgetArriveWhole) {
  const WeightFormat format{WeightFormatKind::kFp4E2M1, 128};
  const std::int64_t n = kWeightRowValues / 64;  // 2 x 128 rows is 4 times the budget
  EXPECT_EQ(weight_rows_per_call(1024, n, format), 256);
  EXPECT_EQ(weight_rows_per_call(100, n, format), 100);
}

TEST(QuantizeWeightRows, ANonFiniteWeightNamesItsRowInTheWholeMatrix) {
  const std::int64_t k = 65'536 + 256;
  const std::int64_t n = 64;
  std::vector<float> w(static_cast<std::size_t>(k * n), 0.5f);
  w[static_cast<std::size_t>((65'540) * n + 3)] = std::numeric_limits<float>::quiet_NaN();
  const WeightFormat format{WeightFormatKind::kFp4E2M1, 128};
  ASSERT_LT(weight_rows_per_call(k, n, format), 65'540);  // the NaN is not in the first call
  RowsOf source{w, n, {}};
  try {
    (void)quantize_weight_rows(k, n, format, [&](std::span<float> rows) { source(rows); });
    FAIL() << "a NaN weight was quantized";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("weight [65540][3] is not finite"), std::string::npos)
        << error.what();
  }
}

TEST(QuantizeWeightRows, RefusesFp16AndEmptyShapes) {
  const auto none = [](std::span<float>) {};
  EXPECT_THROW((void)quantize_weight_rows(8, 8, {WeightFormatKind::kFp16, kPerColumnGroup}, none),
               InputError);
  EXPECT_THROW((void)quantize_weight_rows(0, 8, {WeightFormatKind::kFp4E2M1, 32}, none),
               InputError);
  EXPECT_THROW((void)quantize_weight_rows(8, 8, {WeightFormatKind::kFp4E2M1, 0}, none), InputError);
}

}  // namespace
}  // namespace marlin::kernels
