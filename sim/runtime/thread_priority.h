// Scheduling priority of the calling thread.
#pragma once

namespace marlin::sim {

// Lowers the calling thread's scheduling priority for the rest of its life: nice 10 on Linux,
// where each thread has its own; nothing elsewhere. Best effort: a refusal is ignored. Meant
// for worker threads that end with their launch.
void lower_this_threads_priority() noexcept;

}  // namespace marlin::sim
