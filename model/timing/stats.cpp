#include "model/timing/stats.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "model/common/invariant.h"

namespace marlin::timing {

StatId StatRegistry::add_counter(std::string name, std::string unit, std::string description) {
  MARLIN_CHECK(!name.empty(), "a statistic has a name");
  const bool repeated = std::any_of(infos_.begin(), infos_.end(),
                                    [&](const StatInfo& info) { return info.name == name; });
  MARLIN_CHECK(!repeated, "statistic '" + name + "' is registered once");
  MARLIN_CHECK(infos_.size() < std::numeric_limits<std::uint32_t>::max(),
               "statistic count fits StatId");
  infos_.push_back(StatInfo{std::move(name), std::move(unit), std::move(description)});
  values_.push_back(0);
  return StatId{static_cast<std::uint32_t>(infos_.size() - 1)};
}

std::int64_t StatRegistry::value(std::string_view name) const {
  for (std::size_t i = 0; i < infos_.size(); ++i) {
    if (infos_[i].name == name) {
      return values_[i];
    }
  }
  MARLIN_CHECK(false, "statistic '" + std::string(name) + "' exists");
  return 0;
}

void StatRegistry::reset() { std::fill(values_.begin(), values_.end(), 0); }

void StatRegistry::accumulate(const StatRegistry& other) {
  MARLIN_CHECK(other.infos_.size() == infos_.size(), "accumulated registries match");
  for (std::size_t i = 0; i < infos_.size(); ++i) {
    MARLIN_CHECK(other.infos_[i].name == infos_[i].name, "accumulated registries match");
    values_[i] += other.values_[i];
  }
}

void StatRegistry::append_records(std::string_view prefix, std::vector<StatRecord>& out) const {
  for (std::size_t i = 0; i < infos_.size(); ++i) {
    out.push_back(StatRecord{std::string(prefix) + infos_[i].name, infos_[i].unit,
                             infos_[i].description, values_[i]});
  }
}

}  // namespace marlin::timing
