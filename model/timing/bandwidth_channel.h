// BandwidthChannel: a shared transfer resource (DRAM, a core's link to L2) that moves a fixed
// number of bytes per core cycle, serves requests one after another in arrival order, and adds
// a fixed latency.
//
// Timing of a request of n bytes issued at cycle t (arrival order = call order):
//   start      = max(t, end of the previous request's transfer)
//   end        = start + n / bytes_per_cycle      (exact fraction, carried to the next request)
//   completion = ceil(end) + latency
// The rate is an exact fraction bytes/cycles of integers, so a fractional bytes-per-cycle
// (546 GB/s at 1.578 GHz = 91000/263 bytes per cycle) accumulates no rounding error: channel
// time is kept as whole cycles plus a remainder in units of 1/bytes of a cycle. A request
// issued earlier than a previous call's issue cycle still queues behind it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/timing/cycles.h"
#include "model/timing/stats.h"

namespace marlin::timing {

// An exact transfer rate: `bytes` bytes every `cycles` core cycles (both positive, reduced).
struct TransferRate {
  std::int64_t bytes = 1;
  std::int64_t cycles = 1;

  // From bytes per second and the core clock; both are rounded to whole numbers first
  // (546e9 B/s at 1.578e9 Hz -> 91000 bytes per 263 cycles). Throws InputError naming `what`
  // if either is not positive or too large (> 1e15).
  static TransferRate from_bytes_per_second(double bytes_per_s, double clock_hz,
                                            const std::string& what);
  // From bytes per cycle, resolved to 1/1000000 byte per cycle (32.0 -> 32/1).
  static TransferRate from_bytes_per_cycle(double bytes_per_cycle, const std::string& what);
};

class BandwidthChannel {
 public:
  BandwidthChannel(TransferRate rate, Cycles latency);

  // Serves `bytes` (> 0) issued at `issue`; returns the completion cycle (see above).
  Cycles request(Cycles issue, std::int64_t bytes);

  // First whole cycle at which the channel has finished all transfers so far.
  [[nodiscard]] Cycles idle_from() const;

  // Fraction of [0, elapsed) the channel spent transferring: bytes / (rate * elapsed).
  [[nodiscard]] double utilization(Cycles elapsed) const;

  // Starts recording, per window of `window` cycles ([k * window, (k + 1) * window)), the bytes
  // transferred in it: each request's bytes are spread evenly over its transfer interval.
  // Only requests made after the call are recorded.
  void record_windows(Cycles window);
  // Bytes transferred in window k so far (0 for a window nothing reached, or when not recording).
  [[nodiscard]] double window_bytes(std::int64_t k) const;
  [[nodiscard]] Cycles window() const { return window_; }

  [[nodiscard]] const TransferRate& rate() const { return rate_; }
  [[nodiscard]] Cycles latency() const { return latency_; }
  [[nodiscard]] const StatRegistry& stats() const { return stats_; }

 private:
  // Adds a transfer of `bytes` starting at cycle + fraction / rate_.bytes and lasting `units`
  // / rate_.bytes cycles to the windows it overlaps.
  void spread_over_windows(std::int64_t cycle, std::int64_t fraction, std::int64_t units,
                           std::int64_t bytes);

  TransferRate rate_;
  Cycles latency_;
  // End of the last transfer: free_cycle_ + free_fraction_ / rate_.bytes cycles.
  std::int64_t free_cycle_ = 0;
  std::int64_t free_fraction_ = 0;  // in [0, rate_.bytes)
  Cycles window_;                   // 0: windows not recorded
  std::vector<double> window_bytes_;
  StatRegistry stats_;
  StatId requests_;
  StatId bytes_;
  StatId queued_requests_;
  StatId queue_cycles_;
};

}  // namespace marlin::timing
