#include "model/timing/coalescer.h"

#include <algorithm>
#include <string>

#include "model/common/input_error.h"

namespace marlin::timing {

Coalescer::Coalescer(const model::CacheSpec& l1) : line_bytes_(l1.line_bytes) {
  if (line_bytes_ <= 0) {
    throw InputError("memory.l1.line_bytes must be positive (got " + std::to_string(line_bytes_) +
                     ")");
  }
  lines_.reserve(128);
  accesses_ = stats_.add_counter("accesses", "simdgroup accesses",
                                 "device-memory instructions with at least one active lane");
  lane_accesses_ =
      stats_.add_counter("lane_accesses", "lane accesses", "active lanes of those instructions");
  line_requests_ = stats_.add_counter("line_requests", "line requests",
                                      "distinct cache lines sent to the memory hierarchy");
}

std::span<const std::uint64_t> Coalescer::coalesce(LaneMask mask,
                                                   std::span<const LaneAccess> lanes) {
  lines_.clear();
  const auto line = static_cast<std::uint64_t>(line_bytes_);
  std::int64_t active = 0;
  for_each_active_lane(mask, lanes, [&](const LaneAccess& access) {
    ++active;
    const std::uint64_t first = access.address / line;
    const std::uint64_t last = (access.address + access.bytes - 1) / line;
    for (std::uint64_t l = first; l <= last; ++l) {
      lines_.push_back(l * line);
    }
  });
  std::sort(lines_.begin(), lines_.end());
  lines_.erase(std::unique(lines_.begin(), lines_.end()), lines_.end());
  if (active > 0) {
    stats_.increment(accesses_);
    stats_.add(lane_accesses_, active);
    stats_.add(line_requests_, static_cast<std::int64_t>(lines_.size()));
  }
  return lines_;
}

}  // namespace marlin::timing
