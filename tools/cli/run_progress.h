// RunProgress: one line on a stream (the terminal's stderr) that tells how far a long run has
// got, rewritten in place, so that a full-fidelity run of minutes is not silent. A run shorter
// than the delay prints nothing.
//
// Contract: the constructor starts a thread that, once `delay` has passed and then every
// `period`, writes "\r" followed by line(); line() runs on that thread, so it may read only
// state that is safe to read while the run changes it (atomics). stop(), also called by the
// destructor, ends the thread and, when it wrote a line, writes line() once more and a
// newline. Writing the progress changes nothing of the run or its report.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace marlin::cli {

class RunProgress {
 public:
  RunProgress(std::ostream& out, std::function<std::string()> line, std::chrono::milliseconds delay,
              std::chrono::milliseconds period);
  RunProgress(const RunProgress&) = delete;
  RunProgress& operator=(const RunProgress&) = delete;
  ~RunProgress();

  void stop();

 private:
  void show();

  std::ostream& out_;
  const std::function<std::string()> line_;
  std::mutex mutex_;
  std::condition_variable stopping_;
  bool stopped_ = false;
  bool shown_ = false;  // a line was written
  std::thread thread_;
};

}  // namespace marlin::cli
