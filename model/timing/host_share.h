// The share of a host core a thread got over a span of wall time: what the parallel replay
// measures of each of its threads to decide whether to stop its windows for serial steps
// (launch_replay_parallel.cpp, docs/timing-model.md "Parallel replay").
//
// Contract: where the host reports how long the thread waited, runnable, for a processor
// that other threads held (Linux: the second field of /proc/thread-self/schedstat), the share
// is 1 minus that wait over the wall time, so time the hypervisor takes from the host's
// virtual processors (steal) does not count against it: a window loses nothing to another
// host thread then, and serial steps would not run faster. Elsewhere it is the thread's
// processor time over the wall time.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace marlin::timing {

struct ThreadTimes {
  std::chrono::nanoseconds wall{0};                  // a steady clock
  std::chrono::nanoseconds cpu{0};                   // the thread's processor time
  std::optional<std::chrono::nanoseconds> waited{};  // runnable, waiting for a processor
};

// The calling thread's times now.
[[nodiscard]] ThreadTimes thread_times_now();

// The share of a host core the thread got from `from` to `to` (its times at both ends), in
// [0, 1]; 1 when no wall time passed.
[[nodiscard]] double host_share(const ThreadTimes& from, const ThreadTimes& to);

// The run delay of a schedstat line ("<run ns> <run delay ns> <timeslices>"), or nothing if
// the text is not one.
[[nodiscard]] std::optional<std::chrono::nanoseconds> run_delay_of_schedstat(std::string_view text);

}  // namespace marlin::timing
