// Binary files of a LaunchTrace, for replaying a launch without running it again.
//
// Layout (little-endian, docs/trace-format.md): magic "MSIMTRC\0", u32 version, the launch
// header, then per simdgroup its position, op count, ops (16 bytes each), access count and
// accesses (8 bytes each). Reading checks the magic and version and throws InputError on a
// file that is not a trace of this version or is truncated.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "sim/runtime/trace.h"

namespace marlin::sim {

void write_trace(std::ostream& out, const LaunchTrace& trace);
LaunchTrace read_trace(std::istream& in, const std::string& name);

}  // namespace marlin::sim
