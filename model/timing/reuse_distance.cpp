#include "model/timing/reuse_distance.h"

#include <algorithm>
#include <unordered_map>

namespace marlin::timing {
namespace {

// Prefix sums over access positions (a Fenwick tree): position i holds 1 while access i is
// the latest access of its line.
class LatestAccesses {
 public:
  explicit LatestAccesses(std::size_t n) : tree_(n + 1, 0) {}
  void add(std::size_t i, int delta) {
    for (++i; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
  }
  // Sum over positions [0, i).
  [[nodiscard]] std::int64_t prefix(std::size_t i) const {
    std::int64_t sum = 0;
    for (; i > 0; i -= i & (~i + 1)) sum += tree_[i];
    return sum;
  }

 private:
  std::vector<std::int32_t> tree_;
};

}  // namespace

ReuseDistances reuse_distances(std::span<const std::uint64_t> lines) {
  ReuseDistances out;
  LatestAccesses latest(lines.size());
  std::unordered_map<std::uint64_t, std::size_t> previous;
  previous.reserve(lines.size() / 4 + 1);
  out.sorted.reserve(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto [it, first] = previous.try_emplace(lines[i], i);
    if (first) {
      ++out.first_accesses;
    } else {
      const std::size_t j = it->second;
      // Distinct lines whose latest access lies strictly between j and i.
      out.sorted.push_back(static_cast<std::uint32_t>(latest.prefix(i) - latest.prefix(j + 1)));
      latest.add(j, -1);
      it->second = i;
    }
    latest.add(i, 1);
  }
  std::sort(out.sorted.begin(), out.sorted.end());
  return out;
}

}  // namespace marlin::timing
