// The per-lane memory access of one simdgroup instruction, as the timing model receives it.
//
// Contract: `lanes[i]` is lane i's access; bit i of the LaneMask says whether lane i is
// active. Inactive lanes' entries are ignored. An active lane's access has bytes > 0. Masks
// have no bits at or above lanes.size() (at most 64 lanes).
#pragma once

#include <bit>
#include <cstdint>
#include <span>

#include "model/common/invariant.h"

namespace marlin::timing {

using LaneMask = std::uint64_t;

struct LaneAccess {
  std::uint64_t address = 0;  // byte address (device buffer or threadgroup-memory offset)
  std::uint32_t bytes = 0;    // access size in bytes
};

// Calls fn(const LaneAccess&) for each active lane, in ascending lane order.
template <typename Fn>
void for_each_active_lane(LaneMask mask, std::span<const LaneAccess> lanes, Fn&& fn) {
  MARLIN_CHECK(lanes.size() >= 64 || (mask >> lanes.size()) == 0,
               "lane mask names only lanes that have an access entry");
  while (mask != 0) {
    const int lane = std::countr_zero(mask);
    mask &= mask - 1;
    const LaneAccess& access = lanes[static_cast<std::size_t>(lane)];
    MARLIN_CHECK(access.bytes > 0, "an active lane accesses at least one byte");
    fn(access);
  }
}

}  // namespace marlin::timing
