// The L2 capacity a whole grid's K samples replay with (docs/sampling.md, "The L2's
// capacity"). A sample at a small K touches far fewer lines than the full run: when the full
// run's L2 reuses reach beyond the L2's capacity (lines evicted before their last use), a sample
// with the device's whole L2 keeps them and comes out fast. Such samples replay again with the
// L2 in proportion to their K when the misses the full run adds are many (kL2AddedMisses).
#pragma once

#include <cstdint>
#include <span>

#include "model/device/device_spec.h"
#include "model/timing/reuse_distance.h"

namespace marlin::cli {

// The device's capacity times k_sample / k, rounded down to whole sets (line times
// associativity; lines when fully associative), at least one set; all of it when
// k_sample >= k.
std::int64_t sample_l2_bytes(const model::CacheSpec& l2, std::int64_t k_sample, std::int64_t k);

// What two K samples' L2 reuse distances, measured with the device's L2, say of the full run's.
struct L2Overflow {
  // The share of the full run's reuses estimated to reach the L2's capacity: the reuses of
  // each sample are ranked from the longest, rank r of a sample at K_s standing for rank
  // r K / K_s of the full run (a GEMM's reuses grow in number with K); the distance at each of
  // kReuseRanks evenly spaced ranks, up to the fewer reuses per 1 of K of the two samples, is
  // extrapolated along the line through the samples to the full K; `share` is that of the
  // ranks at or beyond the capacity in lines.
  double share = 0;
  // Those reuses per 1 of K over the K_high sample's first accesses (compulsory misses) per 1
  // of K: the misses the full run adds to the samples', in proportion.
  double added_misses = 0;
};

// The L2 overflow of the full run at K = `k` from two K samples (`k_values`, K_low < K_high),
// `reuse` in the same order; none when a sample has no reuse or k <= K_high.
L2Overflow l2_overflow(const model::CacheSpec& l2, std::span<const timing::ReuseDistances> reuse,
                       std::span<const std::int64_t> k_values, std::int64_t k);
inline constexpr int kReuseRanks = 1024;

// The added misses (L2Overflow::added_misses) from which the samples' L2 is scaled. Set
// between the largest measured where the L2's capacity did not change the full run's cycles
// (1.14%) and the smallest where it did (6.01%; docs/sampling.md, "The L2's capacity").
inline constexpr double kL2AddedMisses = 0.03;

}  // namespace marlin::cli
