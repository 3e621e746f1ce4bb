// Widening a row-major matrix: the rows keep their entries and gain zeros (T{}) on the right.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace marlin::kernels {

// The `rows` x `to_width` matrix whose row r starts with row r of the `rows` x `from_width`
// matrix `from` (to_width >= from_width; from holds rows * from_width entries) and is T{} after.
template <typename T>
std::vector<T> widen_rows(const std::vector<T>& from, std::int64_t rows, std::int64_t from_width,
                          std::int64_t to_width) {
  if (from_width == to_width) return from;
  std::vector<T> to(static_cast<std::size_t>(rows * to_width), T{});
  for (std::int64_t r = 0; r < rows; ++r) {
    std::copy_n(from.begin() + r * from_width, from_width, to.begin() + r * to_width);
  }
  return to;
}

}  // namespace marlin::kernels
