// The per-lane memory access of one simdgroup instruction, as the timing model receives it.
//
// Contract: `lanes[i]` is lane i's access; bit i of the LaneMask says whether lane i is
// active. Inactive lanes' entries are ignored. An active lane's access has bytes > 0. Masks
// have no bits at or above lanes.size() (at most 64 lanes).
#pragma once

#include <array>
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

// Fills out[0, lanes) (1 to 64 lanes) with an affine access: lane i accesses `bytes` at
// base + (first + i * stride) modulo 2^32 within the base, as a trace stores affine runs.
// Returns its lane mask (none when bytes is 0).
inline LaneMask affine_lanes(std::uint32_t first, std::uint32_t stride, std::uint32_t bytes,
                             std::uint32_t lanes, std::array<LaneAccess, 64>& out,
                             std::uint64_t base = 0) {
  MARLIN_CHECK(lanes >= 1 && lanes <= 64, "an affine access has 1 to 64 lanes");
  for (std::uint32_t i = 0; i < lanes; ++i) {
    out[i] = {base + static_cast<std::uint32_t>(first + i * stride), bytes};
  }
  if (bytes == 0) return 0;
  return lanes == 64 ? ~LaneMask{0} : (LaneMask{1} << lanes) - 1;
}

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
