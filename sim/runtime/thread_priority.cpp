#include "sim/runtime/thread_priority.h"

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace marlin::sim {

void lower_this_threads_priority() noexcept {
#if defined(__linux__)
  constexpr int kNice = 10;
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kNice);
#endif
}

}  // namespace marlin::sim
