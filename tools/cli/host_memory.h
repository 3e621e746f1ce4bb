// The host's memory, as the command line sees it: the process's peak resident set and the
// default bound on the engine's traces.
#pragma once

#include <cstdint>
#include <string_view>

namespace marlin::cli {

// Peak resident set of this process so far, in bytes.
std::int64_t peak_rss_bytes();

// Memory the process may use, in bytes: the host's physical memory, or its control group's
// memory limit when that is smaller (a container's); 0 if the system says neither.
std::uint64_t host_memory_bytes();

// The value of a cgroup memory-limit file (memory.max, memory.limit_in_bytes) in bytes; 0 when
// it sets no limit ("max") or is not a whole number.
std::uint64_t parse_cgroup_memory_limit(std::string_view text);

// The default bound on a launch's traces (sim::LaunchOptions::max_trace_bytes): three quarters
// of the host's memory, leaving room for the operands, the replay and the rest of the system;
// 0 (no bound) when the host's memory is unknown.
std::uint64_t default_trace_limit_bytes();

}  // namespace marlin::cli
