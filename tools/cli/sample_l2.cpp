#include "tools/cli/sample_l2.h"

#include <algorithm>
#include <array>

#include "model/common/invariant.h"

namespace marlin::cli {
namespace {

// The reuse distance at `rank` from the longest (0) of an ascending, non-empty list.
double distance_from_top(const std::vector<std::uint32_t>& sorted, double rank) {
  const auto r = std::min(static_cast<std::size_t>(rank), sorted.size() - 1);
  return sorted[sorted.size() - 1 - r];
}

// `bytes` rounded down to whole sets, at least one set, at most the cache's capacity.
std::int64_t whole_sets(const model::CacheSpec& l2, std::int64_t bytes) {
  const std::int64_t set_bytes =
      static_cast<std::int64_t>(std::max(1, l2.line_bytes)) * std::max(1, l2.associativity);
  return std::min(l2.size_bytes, std::max(set_bytes, bytes / set_bytes * set_bytes));
}

}  // namespace

std::int64_t sample_l2_bytes(const model::CacheSpec& l2, std::int64_t k_sample, std::int64_t k) {
  if (k_sample >= k || k <= 0) return l2.size_bytes;
  return whole_sets(l2, static_cast<std::int64_t>(static_cast<double>(l2.size_bytes) *
                                                  static_cast<double>(k_sample) /
                                                  static_cast<double>(k)));
}

L2Overflow l2_overflow(const model::CacheSpec& l2, std::span<const timing::ReuseDistances> reuse,
                       std::span<const std::int64_t> k_values, std::int64_t k) {
  MARLIN_CHECK(reuse.size() == 2 && k_values.size() == 2 && 0 < k_values[0] &&
                   k_values[0] < k_values[1],
               "the L2's overflow is estimated from two K samples, the shorter first");
  if (reuse[0].sorted.empty() || reuse[1].sorted.empty() || k <= k_values[1]) return {};
  const double lines = static_cast<double>(l2.size_bytes) / std::max(1, l2.line_bytes);
  const std::array<double, 2> ks{static_cast<double>(k_values[0]),
                                 static_cast<double>(k_values[1])};
  const double along = (static_cast<double>(k) - ks[0]) / (ks[1] - ks[0]);
  const double per_k = std::min(static_cast<double>(reuse[0].sorted.size()) / ks[0],
                                static_cast<double>(reuse[1].sorted.size()) / ks[1]);
  int beyond = 0;
  for (int j = 0; j < kReuseRanks; ++j) {
    const double rank_per_k = (j + 0.5) / kReuseRanks * per_k;
    const double low = distance_from_top(reuse[0].sorted, rank_per_k * ks[0]);
    const double high = distance_from_top(reuse[1].sorted, rank_per_k * ks[1]);
    if (low + (high - low) * along >= lines) ++beyond;
  }
  L2Overflow out;
  out.share = static_cast<double>(beyond) / kReuseRanks;
  const double first_per_k = static_cast<double>(reuse[1].first_accesses) / ks[1];
  out.added_misses = first_per_k > 0 ? out.share * per_k / first_per_k : 0.0;
  return out;
}

}  // namespace marlin::cli
