#include "model/timing/dram_counter.h"

#include <algorithm>
#include <cmath>

#include "model/common/invariant.h"

namespace marlin::timing {

DramCounter::DramCounter(BandwidthChannel& channel, Cycles window, TimingEventSink& sink)
    : channel_(channel), window_(window.count()), sink_(sink) {
  MARLIN_CHECK(window_ > 0, "the DRAM counter window is at least one cycle");
  channel_.record_windows(window);
}

std::int64_t DramCounter::bytes_before(std::int64_t k) {
  while (static_cast<std::int64_t>(before_.size()) <= k) {
    sum_ += channel_.window_bytes(static_cast<std::int64_t>(before_.size()) - 1);
    before_.push_back(std::llround(sum_));
  }
  return before_[static_cast<std::size_t>(k)];
}

void DramCounter::send_until(std::int64_t t) {
  // Boundary k is final once window k has ended: k * W + W <= t.
  for (; (next_ + 1) * window_ <= t; ++next_) {
    const std::int64_t before = bytes_before(next_ - 1);
    const std::int64_t at = bytes_before(next_);
    const std::int64_t after = bytes_before(next_ + 1);
    if (at - before != after - at) {
      sink_.on_counter(TimingCounter::kDramBytes, -1, Cycles(next_ * window_), at);
    }
  }
}

void DramCounter::finish(Cycles end) {
  const std::int64_t last = std::max(end.count(), channel_.idle_from().count());
  send_until(last);
  // The partial window [next_ * W, last): compare its rate with the previous window's.
  if (next_ * window_ < last) {
    const std::int64_t before = bytes_before(next_ - 1);
    const std::int64_t at = bytes_before(next_);
    const std::int64_t total = channel_.stats().value("bytes");
    const std::int64_t partial = last - next_ * window_;
    if ((at - before) * partial != (total - at) * window_) {
      sink_.on_counter(TimingCounter::kDramBytes, -1, Cycles(next_ * window_), at);
    }
  }
  sink_.on_counter(TimingCounter::kDramBytes, -1, Cycles(last), channel_.stats().value("bytes"));
}

}  // namespace marlin::timing
