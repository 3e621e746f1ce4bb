#include "sim/runtime/threadgroup_shadow.h"

namespace marlin::sim {

void ThreadgroupShadow::begin_threadgroup(std::size_t bytes) {
  if (cells_.size() < bytes) cells_.resize(bytes);
  if (counter_ > 0xF0000000u) {  // keep epochs far from wrapping: restart from zero
    cells_.assign(cells_.size(), ShadowCell{});
    counter_ = 0;
  }
  start_ = ++counter_;
  epoch_ = ++counter_;
}

}  // namespace marlin::sim
