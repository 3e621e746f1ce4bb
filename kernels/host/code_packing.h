// Bit packing of small codes into uint32 words, the layouts every quantized format uses.
//
// Along K (weights): codes [k][n] -> words [ceil(k / c)][n] with c = 32 / bits codes per word;
// the code of row r sits at bits bits * (r % c) of word [r / c][n] (LSB first). Rows past k in
// the last word are padded with code 0.
//
// Along N (4-bit zero points): values [rows][n] -> words [rows][ceil(n / 8)]; the value of
// column j sits at bits 4 * (j % 8) of word [row][j / 8]. Columns past n are padded with 0.
//
// Bad shapes or codes that do not fit in `bits` throw InputError.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace marlin::kernels {

// bits must be 4 or 8.
std::vector<std::uint32_t> pack_codes_along_k(std::span<const std::uint8_t> codes, std::int64_t k,
                                              std::int64_t n, int bits);
std::vector<std::uint8_t> unpack_codes_along_k(std::span<const std::uint32_t> words, std::int64_t k,
                                               std::int64_t n, int bits);

std::vector<std::uint32_t> pack_nibbles_along_n(std::span<const std::uint8_t> values,
                                                std::int64_t rows, std::int64_t n);
std::vector<std::uint8_t> unpack_nibbles_along_n(std::span<const std::uint32_t> words,
                                                 std::int64_t rows, std::int64_t n);

}  // namespace marlin::kernels
