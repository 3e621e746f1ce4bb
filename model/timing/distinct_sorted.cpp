#include "model/timing/distinct_sorted.h"

#include <algorithm>
#include <array>
#include <bit>

namespace marlin::timing {

void make_distinct_sorted(std::vector<std::uint64_t>& values) {
  if (values.size() < 2) return;
  // Lanes in order usually touch ascending addresses: then only repeats go.
  if (std::is_sorted(values.begin(), values.end())) {
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return;
  }
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  const std::uint64_t base = *low;
  constexpr std::uint64_t kSpan = 512;
  if (*high - base >= kSpan) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return;
  }
  std::array<std::uint64_t, kSpan / 64> bits{};
  for (const std::uint64_t v : values)
    bits[(v - base) / 64] |= std::uint64_t{1} << ((v - base) % 64);
  values.clear();
  for (std::size_t word = 0; word < bits.size(); ++word) {
    for (std::uint64_t rest = bits[word]; rest != 0; rest &= rest - 1) {
      values.push_back(base + word * 64 + static_cast<std::uint64_t>(std::countr_zero(rest)));
    }
  }
}

}  // namespace marlin::timing
