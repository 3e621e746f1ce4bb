#include "kernels/host/code_packing.h"

#include <string>

#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

void check_shape(std::int64_t rows, std::int64_t cols, const char* what) {
  if (rows <= 0 || cols <= 0) {
    throw InputError(std::string(what) + ": shape " + std::to_string(rows) + " x " +
                     std::to_string(cols) + " must be positive");
  }
}

void check_size(std::size_t actual, std::int64_t expected, const char* what) {
  if (static_cast<std::int64_t>(actual) != expected) {
    throw InputError(std::string(what) + ": got " + std::to_string(actual) +
                     " elements, expected " + std::to_string(expected));
  }
}

void check_bits(int bits) {
  if (bits != 4 && bits != 8) {
    throw InputError("code packing: " + std::to_string(bits) + "-bit codes are not supported");
  }
}

}  // namespace

std::vector<std::uint32_t> pack_codes_along_k(std::span<const std::uint8_t> codes, std::int64_t k,
                                              std::int64_t n, int bits) {
  check_bits(bits);
  check_shape(k, n, "pack_codes_along_k");
  check_size(codes.size(), k * n, "pack_codes_along_k codes");
  const int per_word = 32 / bits;
  const unsigned limit = 1u << bits;
  std::vector<std::uint32_t> words(static_cast<std::size_t>(ceil_div(k, per_word) * n), 0);
  for (std::int64_t row = 0; row < k; ++row) {
    const int shift = bits * static_cast<int>(row % per_word);
    for (std::int64_t col = 0; col < n; ++col) {
      const std::uint8_t code = codes[static_cast<std::size_t>(row * n + col)];
      if (code >= limit) {
        throw InputError("pack_codes_along_k: code " + std::to_string(code) + " at [" +
                         std::to_string(row) + "][" + std::to_string(col) + "] does not fit in " +
                         std::to_string(bits) + " bits");
      }
      words[static_cast<std::size_t>((row / per_word) * n + col)] |=
          static_cast<std::uint32_t>(code) << shift;
    }
  }
  return words;
}

std::vector<std::uint8_t> unpack_codes_along_k(std::span<const std::uint32_t> words, std::int64_t k,
                                               std::int64_t n, int bits) {
  check_bits(bits);
  check_shape(k, n, "unpack_codes_along_k");
  const int per_word = 32 / bits;
  check_size(words.size(), ceil_div(k, per_word) * n, "unpack_codes_along_k words");
  const std::uint32_t mask = (1u << bits) - 1;
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(k * n));
  for (std::int64_t row = 0; row < k; ++row) {
    const int shift = bits * static_cast<int>(row % per_word);
    for (std::int64_t col = 0; col < n; ++col) {
      const std::uint32_t word = words[static_cast<std::size_t>((row / per_word) * n + col)];
      codes[static_cast<std::size_t>(row * n + col)] =
          static_cast<std::uint8_t>((word >> shift) & mask);
    }
  }
  return codes;
}

std::vector<std::uint32_t> pack_nibbles_along_n(std::span<const std::uint8_t> values,
                                                std::int64_t rows, std::int64_t n) {
  check_shape(rows, n, "pack_nibbles_along_n");
  check_size(values.size(), rows * n, "pack_nibbles_along_n values");
  const std::int64_t words_per_row = ceil_div(n, 8);
  std::vector<std::uint32_t> words(static_cast<std::size_t>(rows * words_per_row), 0);
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t col = 0; col < n; ++col) {
      const std::uint8_t value = values[static_cast<std::size_t>(row * n + col)];
      if (value > 15) {
        throw InputError("pack_nibbles_along_n: value " + std::to_string(value) + " at [" +
                         std::to_string(row) + "][" + std::to_string(col) +
                         "] does not fit in 4 bits");
      }
      words[static_cast<std::size_t>(row * words_per_row + col / 8)] |=
          static_cast<std::uint32_t>(value) << (4 * (col % 8));
    }
  }
  return words;
}

std::vector<std::uint8_t> unpack_nibbles_along_n(std::span<const std::uint32_t> words,
                                                 std::int64_t rows, std::int64_t n) {
  check_shape(rows, n, "unpack_nibbles_along_n");
  const std::int64_t words_per_row = ceil_div(n, 8);
  check_size(words.size(), rows * words_per_row, "unpack_nibbles_along_n words");
  std::vector<std::uint8_t> values(static_cast<std::size_t>(rows * n));
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t col = 0; col < n; ++col) {
      const std::uint32_t word = words[static_cast<std::size_t>(row * words_per_row + col / 8)];
      values[static_cast<std::size_t>(row * n + col)] =
          static_cast<std::uint8_t>((word >> (4 * (col % 8))) & 0xFu);
    }
  }
  return values;
}

}  // namespace marlin::kernels
