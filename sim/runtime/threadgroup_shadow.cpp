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

ShadowVerdict ThreadgroupShadow::access_byte(std::size_t offset, const ShadowAccess& a,
                                             std::uint32_t* other) {
  ShadowCell& c = cells_[offset];
  constexpr std::uint32_t kWidth = 32;
  // Ordered within a simdgroup when its sync epoch moved on since the earlier access.
  const auto simd_ordered = [&](std::uint32_t thread, std::uint32_t simd_epoch) {
    return thread / kWidth == a.simdgroup && simd_epoch != a.simd_epoch;
  };
  ShadowVerdict verdict = ShadowVerdict::kOk;
  if (a.atomic) {
    // Atomic operations are ordered among themselves; they initialize the bytes.
  } else if (!a.write && c.write_epoch <= start_) {
    verdict = ShadowVerdict::kUninitialized;
  } else if (c.write_epoch == epoch_ && c.writer != a.thread &&
             !simd_ordered(c.writer, c.write_simd_epoch)) {
    verdict = ShadowVerdict::kRaceWithWriter;
    *other = c.writer;
  } else if (a.write && c.read_epoch == epoch_ && c.reader != a.thread &&
             !simd_ordered(c.reader, c.read_simd_epoch)) {
    verdict = ShadowVerdict::kRaceWithReader;
    *other = c.reader;
  }
  if (a.write) {
    c.write_epoch = epoch_;
    c.writer = static_cast<std::uint16_t>(a.thread);
    c.write_simd_epoch = a.simd_epoch;
  } else {
    c.read_epoch = epoch_;
    c.reader = static_cast<std::uint16_t>(a.thread);
    c.read_simd_epoch = a.simd_epoch;
  }
  return verdict;
}

}  // namespace marlin::sim
