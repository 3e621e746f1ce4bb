// Packing of codes along K and zero points along N: hand examples and random round trips.
#include "kernels/host/code_packing.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/host/test_inputs.h"
#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

TEST(CodePacking, EightNibblesAlongKAreLsbFirst) {
  // K = 8, N = 1: code of row r at bits 4r -> nibbles 7..0 read 7 6 5 4 3 2 1 0.
  const std::vector<std::uint8_t> codes = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(pack_codes_along_k(codes, 8, 1, 4), std::vector<std::uint32_t>{0x76543210u});
}

TEST(CodePacking, WordsAreRowMajorOverPackedRowsAndColumns) {
  // K = 16, N = 2, codes[r][j] = (r + 3j) % 16. Word [p][j] holds rows 8p..8p+7 of column j.
  std::vector<std::uint8_t> codes(32);
  for (int r = 0; r < 16; ++r) {
    for (int j = 0; j < 2; ++j) codes[r * 2 + j] = static_cast<std::uint8_t>((r + 3 * j) % 16);
  }
  // [0][0]: rows 0..7 col 0 -> 0..7          -> 0x76543210
  // [0][1]: rows 0..7 col 1 -> 3..10         -> 0xA9876543
  // [1][0]: rows 8..15 col 0 -> 8..15        -> 0xFEDCBA98
  // [1][1]: rows 8..15 col 1 -> 11..15,0,1,2 -> 0x210FEDCB
  const std::vector<std::uint32_t> expected = {0x76543210u, 0xA9876543u, 0xFEDCBA98u, 0x210FEDCBu};
  EXPECT_EQ(pack_codes_along_k(codes, 16, 2, 4), expected);
}

TEST(CodePacking, KNotAMultipleOfEightIsPaddedWithCodeZero) {
  // K = 10, N = 1: second word holds rows 8, 9 and six padding nibbles of 0.
  const std::vector<std::uint8_t> codes = {1, 1, 1, 1, 1, 1, 1, 1, 0xF, 0xA};
  const std::vector<std::uint32_t> expected = {0x11111111u, 0x000000AFu};
  EXPECT_EQ(pack_codes_along_k(codes, 10, 1, 4), expected);
  EXPECT_EQ(unpack_codes_along_k(expected, 10, 1, 4), codes);
}

TEST(CodePacking, EightBitCodesFourPerWord) {
  // Bytes 0x01, 0x80, 0xFF, 0x7F along K -> 0x7FFF8001; a fifth row starts the next word.
  const std::vector<std::uint8_t> codes = {0x01, 0x80, 0xFF, 0x7F, 0x42};
  const std::vector<std::uint32_t> expected = {0x7FFF8001u, 0x00000042u};
  EXPECT_EQ(pack_codes_along_k(codes, 5, 1, 8), expected);
  EXPECT_EQ(unpack_codes_along_k(expected, 5, 1, 8), codes);
}

TEST(CodePacking, RandomRoundTripIncludingRaggedK) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  RandomInputs random(seed);
  for (const int bits : {4, 8}) {
    const int per_word = 32 / bits;
    for (const std::int64_t k : {1, 3, 7, 8, 9, 15, 64, 129}) {
      for (const std::int64_t n : {1, 2, 5, 64}) {
        const std::vector<std::uint8_t> codes = random.codes(k * n, 1 << bits);
        const std::vector<std::uint32_t> words = pack_codes_along_k(codes, k, n, bits);
        ASSERT_EQ(static_cast<std::int64_t>(words.size()), (k + per_word - 1) / per_word * n);
        EXPECT_EQ(unpack_codes_along_k(words, k, n, bits), codes) << "k=" << k << " n=" << n;
        // Padding rows of the last packed row are zero bits.
        const std::int64_t used = k % per_word;
        if (used != 0) {
          for (std::int64_t j = 0; j < n; ++j) {
            const std::uint32_t last = words[static_cast<std::size_t>((k / per_word) * n + j)];
            EXPECT_EQ(last >> (bits * used), 0u) << "k=" << k << " n=" << n << " j=" << j;
          }
        }
      }
    }
  }
}

TEST(ZeroPointPacking, EightNibblesAlongN) {
  // One row, N = 10: columns 0..7 in word 0, columns 8, 9 in word 1 (rest padded with 0).
  const std::vector<std::uint8_t> zeros = {8, 7, 6, 5, 4, 3, 2, 1, 0xC, 0xD};
  const std::vector<std::uint32_t> expected = {0x12345678u, 0x000000DCu};
  EXPECT_EQ(pack_nibbles_along_n(zeros, 1, 10), expected);
  EXPECT_EQ(unpack_nibbles_along_n(expected, 1, 10), zeros);
}

TEST(ZeroPointPacking, RandomRoundTrip) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed_message(seed));
  RandomInputs random(seed);
  for (const std::int64_t rows : {1, 3, 32}) {
    for (const std::int64_t n : {1, 7, 8, 9, 100}) {
      const std::vector<std::uint8_t> zeros = random.codes(rows * n, 16);
      const std::vector<std::uint32_t> words = pack_nibbles_along_n(zeros, rows, n);
      ASSERT_EQ(static_cast<std::int64_t>(words.size()), rows * ((n + 7) / 8));
      EXPECT_EQ(unpack_nibbles_along_n(words, rows, n), zeros);
    }
  }
}

TEST(CodePacking, BadInputThrows) {
  const std::vector<std::uint8_t> too_big = {16};
  EXPECT_THROW(pack_codes_along_k(too_big, 1, 1, 4), InputError);
  EXPECT_THROW(pack_nibbles_along_n(too_big, 1, 1), InputError);
  const std::vector<std::uint8_t> three = {1, 2, 3};
  EXPECT_THROW(pack_codes_along_k(three, 2, 2, 4), InputError);  // 3 codes for 2 x 2
  EXPECT_THROW(pack_codes_along_k(three, 3, 1, 2), InputError);  // 2-bit codes unsupported
  EXPECT_THROW(pack_codes_along_k(three, 0, 3, 4), InputError);
  const std::vector<std::uint32_t> one_word = {0};
  EXPECT_THROW(unpack_codes_along_k(one_word, 9, 1, 4), InputError);  // needs 2 words
}

}  // namespace
}  // namespace marlin::kernels
