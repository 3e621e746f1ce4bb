// Checks one simdgroup's trace before the timing model replays it (docs/trace-format.md).
//
// Contract: a trace passes when every op's dep names an earlier op, every ALU op has a known
// kind and a dependent chain that fits its run, and every op with accesses finds them inside
// the simdgroup's access list. check_simdgroup_trace() returns how many ops back the deps
// reach, plus one (1 when no op has a dep), or the first defect: the index of the bad op and
// what is wrong with it, for the caller to put after the trace's name.
#pragma once

#include <cstddef>
#include <string>
#include <variant>

#include "sim/runtime/trace.h"

namespace marlin::timing {

struct TraceDefect {
  std::size_t op = 0;
  std::string what;  // e.g. "dep 9 is not an earlier op"
};

// The deps' reach (ops back, plus one) or the first defect.
std::variant<std::size_t, TraceDefect> check_simdgroup_trace(const sim::SimdgroupTrace& sg);

}  // namespace marlin::timing
