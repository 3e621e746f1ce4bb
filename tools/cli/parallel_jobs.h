// Independent jobs spread over host threads, for the verbs that run many simulations.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace marlin::cli {

// Runs job(i) for every i in [0, count) on up to `threads` host threads (the calling thread
// among them), each i exactly once, in no particular order; progress(done, count), if given,
// is called after each job, one call at a time. Jobs must write only their own results.
inline void run_parallel_jobs(std::size_t count, unsigned threads,
                              const std::function<void(std::size_t)>& job,
                              const std::function<void(std::size_t, std::size_t)>& progress) {
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex progress_mutex;
  const auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      job(i);
      const std::lock_guard<std::mutex> lock(progress_mutex);
      ++done;
      if (progress) progress(done, count);
    }
  };
  std::vector<std::thread> pool;
  const auto workers =
      static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, count)));
  for (unsigned t = 1; t < workers; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
}

}  // namespace marlin::cli
