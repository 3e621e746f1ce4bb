// Independent jobs spread over host threads, for the verbs that run many simulations.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace marlin::cli {

// Runs job(i) for every i in [0, count) on up to `threads` host threads (the calling thread
// among them), each i exactly once, in no particular order; progress(done, count), if given,
// is called after each job, one call at a time. Jobs must write only their own results.
// A job that throws does not stop the others: once all have run, the exception of the failed
// job with the lowest i is rethrown, whichever failed first in time.
inline void run_parallel_jobs(std::size_t count, unsigned threads,
                              const std::function<void(std::size_t)>& job,
                              const std::function<void(std::size_t, std::size_t)>& progress) {
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex progress_mutex;
  std::vector<std::exception_ptr> errors(count);
  const auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        job(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
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
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace marlin::cli
