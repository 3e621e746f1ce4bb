// The host's processor time, as the command line measures its own runs.
#pragma once

namespace marlin::cli {

// Processor time this process has used so far, user and system, summed over all its threads
// (those that ended too), in seconds. Differences of two calls measure a span of work; divided
// by the span's wall time they give the host cores busy on average.
double process_cpu_seconds();

}  // namespace marlin::cli
