// Coalescer: turns one simdgroup's device-memory access into the cache lines it touches.
//
// Contract: coalesce() returns the distinct line addresses (byte address of each line's first
// byte) touched by the active lanes, in ascending address order, which is the order in which
// the memory hierarchy receives the line requests. A lane whose bytes straddle a line boundary
// touches every line its bytes fall in. The returned span stays valid until the next call.
// After the first calls have grown the internal buffer, coalesce() does not allocate.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/device/device_spec.h"
#include "model/timing/fixed_divisor.h"
#include "model/timing/lane_access.h"
#include "model/timing/stats.h"

namespace marlin::timing {

class Coalescer {
 public:
  // Uses the L1 line size; throws InputError if line_bytes is not positive.
  explicit Coalescer(const model::CacheSpec& l1);

  std::span<const std::uint64_t> coalesce(LaneMask mask, std::span<const LaneAccess> lanes);

  // The same for an affine run of `lanes` active lanes (1 to 64): lane i accesses `bytes`
  // (> 0) bytes at base + (offset + i * stride) mod 2^32, the addressing of a trace's stored
  // affine run (sim::access_at). Equal to coalesce() over those lanes, results and counters;
  // without building the lanes when 0 <= stride <= line size and the run does not wrap.
  std::span<const std::uint64_t> coalesce_affine(std::uint64_t base, std::uint32_t offset,
                                                 std::uint32_t stride, std::uint32_t bytes,
                                                 std::uint32_t lanes);

  [[nodiscard]] int line_bytes() const { return static_cast<int>(line_bytes_.divisor()); }
  [[nodiscard]] const StatRegistry& stats() const { return stats_; }
  // For copies that coalesce on other threads: zero the counters, and add a copy's to these.
  void reset_stats() { stats_.reset(); }
  void add_stats(const Coalescer& other) { stats_.accumulate(other.stats_); }

 private:
  // Counts one access of `active` lanes that touched lines_.
  void count(std::int64_t active);

  FixedDivisor line_bytes_;
  std::vector<std::uint64_t> lines_;  // reused across calls
  StatRegistry stats_;
  StatId accesses_;
  StatId lane_accesses_;
  StatId line_requests_;
};

}  // namespace marlin::timing
