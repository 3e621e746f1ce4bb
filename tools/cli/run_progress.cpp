#include "tools/cli/run_progress.h"

#include <utility>

namespace marlin::cli {

RunProgress::RunProgress(std::ostream& out, std::function<std::string()> line,
                         std::chrono::milliseconds delay, std::chrono::milliseconds period)
    : out_(out), line_(std::move(line)) {
  thread_ = std::thread([this, delay, period] {
    std::unique_lock lock(mutex_);
    if (stopping_.wait_for(lock, delay, [this] { return stopped_; })) return;
    try {
      do {
        show();
      } while (!stopping_.wait_for(lock, period, [this] { return stopped_; }));
    } catch (...) {  // a line that cannot be built or written: no more progress
    }
  });
}

RunProgress::~RunProgress() { stop(); }

void RunProgress::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
  }
  stopping_.notify_all();
  thread_.join();
  if (!shown_) return;
  try {
    show();
    out_ << '\n' << std::flush;
  } catch (...) {  // stop() runs in the destructor, also while an error unwinds the run
  }
}

void RunProgress::show() {
  out_ << '\r' << line_() << std::flush;
  shown_ = true;
}

}  // namespace marlin::cli
