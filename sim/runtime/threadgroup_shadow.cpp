#include "sim/runtime/threadgroup_shadow.h"

#include <bit>

namespace marlin::sim {

void ThreadgroupShadow::begin_threadgroup(std::size_t bytes) {
  const std::size_t cells = cell_of(bytes + granule() - 1);
  if (cells_.size() < cells) cells_.resize(cells);
  if (counter_ > 0xF0000000u) {  // keep epochs far from wrapping: restart from zero
    cells_.assign(cells_.size(), ShadowCell{});
    counter_ = 0;
  }
  start_ = ++counter_;
  epoch_ = ++counter_;
}

void ThreadgroupShadow::split(std::size_t alignment) {
  const auto shift = static_cast<std::uint32_t>(std::countr_zero(alignment | granule()));
  const std::size_t parts = std::size_t{1} << (shift_ - shift);
  std::vector<ShadowCell> cells(cells_.size() * parts);
  for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = cells_[i / parts];
  cells_ = std::move(cells);
  shift_ = shift;
}

}  // namespace marlin::sim
