#include "model/timing/coalescer.h"

#include <array>
#include <string>

#include "model/common/input_error.h"
#include "model/common/invariant.h"
#include "model/timing/distinct_sorted.h"

namespace marlin::timing {

namespace {

std::uint64_t positive_line_bytes(int line_bytes) {
  if (line_bytes <= 0) {
    throw InputError("memory.l1.line_bytes must be positive (got " + std::to_string(line_bytes) +
                     ")");
  }
  return static_cast<std::uint64_t>(line_bytes);
}

}  // namespace

Coalescer::Coalescer(const model::CacheSpec& l1) : line_bytes_(positive_line_bytes(l1.line_bytes)) {
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
  std::int64_t active = 0;
  for_each_active_lane(mask, lanes, [&](const LaneAccess& access) {
    ++active;
    const std::uint64_t first = line_bytes_.quotient(access.address);
    const std::uint64_t last = line_bytes_.quotient(access.address + access.bytes - 1);
    for (std::uint64_t l = first; l <= last; ++l) {
      lines_.push_back(l);
    }
  });
  make_distinct_sorted(lines_);
  for (std::uint64_t& l : lines_) l *= line_bytes_.divisor();
  count(active);
  return lines_;
}

std::span<const std::uint64_t> Coalescer::coalesce_affine(std::uint64_t base, std::uint32_t offset,
                                                          std::uint32_t stride, std::uint32_t bytes,
                                                          std::uint32_t lanes) {
  MARLIN_CHECK(lanes >= 1 && lanes <= 64 && bytes > 0, "an affine run of 1 to 64 active lanes");
  const std::uint64_t end = std::uint64_t{offset} + std::uint64_t{stride} * (lanes - 1) + bytes;
  if (stride <= line_bytes_.divisor() && end <= (std::uint64_t{1} << 32)) {
    // Each access starts at most one line after the previous one and ends no earlier, so
    // the run touches every line from its first byte's to its last byte's.
    lines_.clear();
    const std::uint64_t first = line_bytes_.quotient(base + offset);
    const std::uint64_t last = line_bytes_.quotient(base + end - 1);
    for (std::uint64_t l = first; l <= last; ++l) lines_.push_back(l * line_bytes_.divisor());
    count(lanes);
    return lines_;
  }
  std::array<LaneAccess, 64> accesses{};
  const LaneMask mask = affine_lanes(offset, stride, bytes, lanes, accesses, base);
  return coalesce(mask, std::span<const LaneAccess>(accesses.data(), lanes));
}

void Coalescer::count(std::int64_t active) {
  if (active == 0) return;
  stats_.increment(accesses_);
  stats_.add(lane_accesses_, active);
  stats_.add(line_requests_, static_cast<std::int64_t>(lines_.size()));
}

}  // namespace marlin::timing
