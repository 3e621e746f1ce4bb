// Kernels written the way real Metal kernels are (tests/sim/kernels/dialect.metal), checked
// against plain C++: U4B8 dequantization with vector bit tricks, and a mix of constructs.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

TEST(DialectTest, DequantU4b8MatchesReferenceAndCountsItsWork) {
  const std::uint32_t words = 64;
  std::vector<std::uint32_t> packed(words);
  for (std::uint32_t i = 0; i < words; ++i) packed[i] = 0x9E3779B9u * (i + 1);
  std::vector<_Float16> scales(words / 8);
  for (std::size_t g = 0; g < scales.size(); ++g)
    scales[g] = static_cast<_Float16>(0.125f * (g + 1));
  std::vector<_Float16> out(words * 8);
  LaunchSpec s = spec("test_dequant_u4", {2, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(packed);
  s.buffers[1] = buffer(scales);
  s.buffers[2] = buffer(out);
  const LaunchResult r = launch(s);
  for (std::uint32_t i = 0; i < words; ++i) {
    for (std::uint32_t n = 0; n < 8; ++n) {
      const int nibble = static_cast<int>((packed[i] >> (4 * n)) & 0xF);
      const float expected = static_cast<float>(nibble - 8) * static_cast<float>(scales[i / 8]);
      EXPECT_EQ(static_cast<float>(out[i * 8 + n]), expected) << i << " nibble " << n;
    }
  }
  // Per thread, counted by hand from the source: two halves, each with a uint4 shift (4),
  // & mask (4), conversion to ushort4 (4), | exponent (4), half4 subtract (4) and multiply (4);
  // on scalars: packed >> 16 (1 shift), gid / kGroup, 2 * gid twice (3 int mul), + 1 (1 add).
  const auto ops = [&](AluKind k) { return r.stats.alu_lane_ops[static_cast<std::size_t>(k)]; };
  EXPECT_EQ(ops(AluKind::kIntShift), words * (8 + 1));
  EXPECT_EQ(ops(AluKind::kIntMul), words * 3);
  EXPECT_EQ(ops(AluKind::kIntAdd), words * 1);
  EXPECT_EQ(ops(AluKind::kIntLogic), words * 16);
  EXPECT_EQ(ops(AluKind::kConvert), words * 8);
  EXPECT_EQ(ops(AluKind::kFp16Add), words * 8);
  EXPECT_EQ(ops(AluKind::kFp16Mul), words * 8);
}

TEST(DialectTest, MixedConstructsKernel) {
  std::vector<_Float16> in(64 * 8);
  for (std::size_t j = 0; j < in.size(); ++j) in[j] = static_cast<_Float16>((j % 5) * 0.25f);
  std::vector<float> out(64, -1.0f);
  LaunchSpec s = spec("test_dialect_mix", {1, 1, 1}, {64, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  EXPECT_TRUE(launch(s).ok());
  const float table[4] = {0.5f, 1.0f, 2.0f, 4.0f};
  std::vector<float> row(64);
  for (std::size_t t = 0; t < 64; ++t) {
    float sum = 0.0f;
    for (std::size_t j = 0; j < 8; ++j) sum += static_cast<float>(in[t * 8 + j]);
    row[t] = sum;  // at most 8: exact in half
  }
  std::vector<float> prod(64);
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 8; ++c) {
      float acc = 0.0f;
      for (int k = 0; k < 8; ++k) acc += table[k % 4] * row[static_cast<std::size_t>(k * 8 + c)];
      prod[static_cast<std::size_t>(r * 8 + c)] = acc;
    }
  }
  for (std::size_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], prod[t] + prod[t + 32] * 1000.0f) << t;
  for (std::size_t t = 32; t < 64; ++t) EXPECT_EQ(out[t], row[t]) << t;
}

}  // namespace
}  // namespace marlin::sim
