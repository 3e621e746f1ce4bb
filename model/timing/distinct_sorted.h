// Sorting a small list of values (the lines or bank words one simdgroup access touches) and
// dropping repeats, in place.
#pragma once

#include <cstdint>
#include <vector>

namespace marlin::timing {

// Leaves `values` sorted ascending with each value once. A list already in order only loses
// its repeats; otherwise values within a span of 512 go through a bitmap (linear time), and
// wider spans are sorted.
void make_distinct_sorted(std::vector<std::uint64_t>& values);

}  // namespace marlin::timing
