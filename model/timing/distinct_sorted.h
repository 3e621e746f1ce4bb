// Sorting a small list of values (the lines or bank words one simdgroup access touches) and
// dropping repeats, in place.
#pragma once

#include <cstdint>
#include <vector>

namespace marlin::timing {

// Leaves `values` sorted ascending with each value once. Values within a span of 512 go
// through a bitmap (linear time, the usual case for one access); wider spans are sorted.
void make_distinct_sorted(std::vector<std::uint64_t>& values);

}  // namespace marlin::timing
