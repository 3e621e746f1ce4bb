// Reuse distances of a stream of cache-line accesses: for each access to a line accessed
// before, the number of distinct other lines accessed since its previous access (its LRU stack
// distance). A fully associative LRU cache of C lines hits exactly the accesses whose distance
// is below C; a set-associative one approximately so.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace marlin::timing {

struct ReuseDistances {
  std::vector<std::uint32_t> sorted;  // one per reuse, ascending
  std::int64_t first_accesses = 0;    // accesses to a line not accessed before
};

// The reuse distances of `lines` (line numbers in access order), in O(n log n).
ReuseDistances reuse_distances(std::span<const std::uint64_t> lines);

}  // namespace marlin::timing
