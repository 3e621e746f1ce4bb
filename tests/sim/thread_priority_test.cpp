// lower_this_threads_priority(): the calling thread ends at nice 10 or lower priority, and only
// that thread (Linux, where each thread has its own nice value).
#include "sim/runtime/thread_priority.h"

#include <gtest/gtest.h>

#include <thread>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace marlin::sim {
namespace {

#if defined(__linux__)
int nice_of_this_thread() { return getpriority(PRIO_PROCESS, static_cast<id_t>(gettid())); }

TEST(ThreadPriority, LowersOnlyTheCallingThread) {
  const int before = nice_of_this_thread();
  int in_thread = 0;
  std::thread worker([&] {
    lower_this_threads_priority();
    in_thread = nice_of_this_thread();
  });
  worker.join();
  EXPECT_GE(in_thread, 10);
  EXPECT_EQ(nice_of_this_thread(), before);
}
#endif

}  // namespace
}  // namespace marlin::sim
