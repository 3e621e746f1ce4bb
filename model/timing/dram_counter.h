// DramCounter: reports the DRAM channel's bytes to a TimingEventSink as a counter sampled over
// fixed windows of simulated cycles (docs/timing-model.md, "Event sink").
//
// Contract: the channel records the bytes it transfers per window of W cycles (transfer time,
// not request time: a request's bytes are spread over its transfer interval). A sample
// on_counter(kDramBytes, -1, k * W, bytes transferred before k * W) is sent for each window
// boundary k >= 1 where the rate changes (the bytes of window k - 1 differ from those of window
// k); boundaries where it stays the same are left out, since the rate between two samples is
// their difference over the time between them. advance(t) sends the boundaries that time t has
// made final (requests made at t or later transfer at t or later); the replay calls it at every
// threadgroup end, so the order of sink calls does not depend on which other cycles it
// visits. finish(end) sends the rest
// and a last sample at the end of the last transfer (or `end` if later) with every byte the
// channel moved. Samples come in increasing cycle order.
#pragma once

#include <cstdint>
#include <vector>

#include "model/timing/bandwidth_channel.h"
#include "model/timing/cycles.h"
#include "model/timing/timing_event_sink.h"

namespace marlin::timing {

class DramCounter {
 public:
  // Starts the channel's window recording; `sink` must outlive this object.
  DramCounter(BandwidthChannel& channel, Cycles window, TimingEventSink& sink);

  // Sends every boundary whose following window ends at or before `t`.
  void advance(Cycles t) {
    if ((next_ + 1) * window_ <= t.count()) send_until(t.count());
  }

  // Sends the remaining boundaries before the end and the last sample.
  void finish(Cycles end);

 private:
  // Whole bytes transferred before boundary k (rounded sum of the windows before it).
  std::int64_t bytes_before(std::int64_t k);
  void send_until(std::int64_t t);

  BandwidthChannel& channel_;
  std::int64_t window_;
  TimingEventSink& sink_;
  std::int64_t next_ = 1;                // next boundary to decide
  double sum_ = 0;                       // bytes of windows [0, before_.size() - 1)
  std::vector<std::int64_t> before_{0};  // before_[k]: bytes_before(k), as far as computed
};

}  // namespace marlin::timing
