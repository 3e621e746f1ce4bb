// PaddedArray: an array whose elements each sit on cache lines of their own, for per-core
// state that threads stepping different cores write at once (launch_replay.h): packed, the
// neighbouring cores of two threads would share a line and take it from each other on every
// write.
#pragma once

#include <cstddef>
#include <vector>

namespace marlin::timing {

inline constexpr std::size_t kHostCacheLineBytes = 64;

template <typename T>
class PaddedArray {
 public:
  void assign(std::size_t n, const T& value) { cells_.assign(n, Cell{value}); }
  T& operator[](std::size_t i) { return cells_[i].value; }
  const T& operator[](std::size_t i) const { return cells_[i].value; }
  [[nodiscard]] std::size_t size() const { return cells_.size(); }
  [[nodiscard]] bool all_equal(const T& value) const {
    for (const Cell& c : cells_) {
      if (!(c.value == value)) return false;
    }
    return true;
  }

 private:
  struct alignas(kHostCacheLineBytes) Cell {
    T value;
  };
  std::vector<Cell> cells_;
};

}  // namespace marlin::timing
