// Statistics of the timing model: plain integer counters registered once with a name, a unit
// and a description, incremented on the hot path by index, enumerated by report writers.
//
// Contract: a component owns a StatRegistry and registers each counter in its constructor,
// keeping the returned StatId as a member. The hot path calls add()/increment() with that id,
// which is one integer add into a vector (no string lookup, no allocation). Names are unique
// within a registry; writers prefix them with the component's place ("memory.l2.read_hits").
// Units name the clock for times ("core cycles"). Every counter is defined in
// docs/timing-model.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace marlin::timing {

// What a counter is; fixed at registration.
struct StatInfo {
  std::string name;         // short snake_case name, unique within its registry
  std::string unit;         // "accesses", "bytes", "core cycles", ...
  std::string description;  // one sentence
};

// Index of a counter in its registry.
struct StatId {
  std::uint32_t index = 0;
};

// One counter as a writer sees it: its full (prefixed) name, unit, description and value.
struct StatRecord {
  std::string name;
  std::string unit;
  std::string description;
  std::int64_t value = 0;
};

class StatRegistry {
 public:
  // Registers a counter starting at zero. A repeated or empty name is an internal error.
  StatId add_counter(std::string name, std::string unit, std::string description);

  // Hot path: integer adds by index.
  void add(StatId id, std::int64_t amount) { values_[id.index] += amount; }
  void increment(StatId id) { ++values_[id.index]; }

  [[nodiscard]] std::int64_t value(StatId id) const { return values_[id.index]; }
  // Value by name, for tests and writers (a linear search). Unknown names are internal errors.
  [[nodiscard]] std::int64_t value(std::string_view name) const;

  // Enumeration in registration order.
  [[nodiscard]] std::size_t size() const { return infos_.size(); }
  [[nodiscard]] const StatInfo& info(std::size_t i) const { return infos_[i]; }
  [[nodiscard]] std::int64_t value_at(std::size_t i) const { return values_[i]; }

  // Sets every counter to zero; registrations stay.
  void reset();

  // Adds the values of a registry with the same registrations (same names in the same order),
  // e.g. to total the per-core instances of one component.
  void accumulate(const StatRegistry& other);

  // Appends one record per counter, named prefix + name, to `out`.
  void append_records(std::string_view prefix, std::vector<StatRecord>& out) const;

 private:
  std::vector<StatInfo> infos_;
  std::vector<std::int64_t> values_;
};

}  // namespace marlin::timing
