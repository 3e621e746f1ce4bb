// The host's memory, as the command line sees it: the process's peak resident set and the
// default bound on the engine's traces.
#pragma once

#include <cstdint>

namespace marlin::cli {

// Peak resident set of this process so far, in bytes.
std::int64_t peak_rss_bytes();

// Physical memory of the host in bytes (0 if the system does not say).
std::uint64_t host_memory_bytes();

// The default bound on a launch's traces (sim::LaunchOptions::max_trace_bytes): three quarters
// of the host's memory, leaving room for the operands, the replay and the rest of the system;
// 0 (no bound) when the host's memory is unknown.
std::uint64_t default_trace_limit_bytes();

}  // namespace marlin::cli
