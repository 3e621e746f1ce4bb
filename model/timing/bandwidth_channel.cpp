#include "model/timing/bandwidth_channel.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "model/common/input_error.h"
#include "model/common/invariant.h"

namespace marlin::timing {
namespace {

constexpr double kMaxRateTerm = 1e15;

std::int64_t whole_positive(double value, const std::string& what) {
  if (!std::isfinite(value) || value <= 0 || value > kMaxRateTerm) {
    throw InputError(what + " must be positive and at most 1e15 (got " + std::to_string(value) +
                     ")");
  }
  const auto whole = static_cast<std::int64_t>(std::llround(value));
  if (whole <= 0) {
    throw InputError(what + " rounds to zero (got " + std::to_string(value) + ")");
  }
  return whole;
}

TransferRate reduced(std::int64_t bytes, std::int64_t cycles) {
  const std::int64_t g = std::gcd(bytes, cycles);
  return TransferRate{bytes / g, cycles / g};
}

}  // namespace

TransferRate TransferRate::from_bytes_per_second(double bytes_per_s, double clock_hz,
                                                 const std::string& what) {
  return reduced(whole_positive(bytes_per_s, what),
                 whole_positive(clock_hz, "gpu.clock_hz (for " + what + ")"));
}

TransferRate TransferRate::from_bytes_per_cycle(double bytes_per_cycle, const std::string& what) {
  constexpr double kResolution = 1e6;
  if (!std::isfinite(bytes_per_cycle) || bytes_per_cycle <= 0) {
    throw InputError(what + " must be positive (got " + std::to_string(bytes_per_cycle) + ")");
  }
  return reduced(whole_positive(bytes_per_cycle * kResolution, what),
                 static_cast<std::int64_t>(kResolution));
}

BandwidthChannel::BandwidthChannel(TransferRate rate, Cycles latency)
    : rate_(rate), latency_(latency) {
  MARLIN_CHECK(rate_.bytes > 0 && rate_.cycles > 0, "a transfer rate is positive");
  MARLIN_CHECK(latency_ >= Cycles(0), "a channel latency is not negative");
  requests_ = stats_.add_counter("requests", "requests", "transfers served");
  bytes_ = stats_.add_counter("bytes", "bytes", "bytes transferred");
  queued_requests_ = stats_.add_counter("queued_requests", "requests",
                                        "transfers that found the channel busy when issued");
  queue_cycles_ = stats_.add_counter(
      "queue_cycles", "core cycles",
      "sum over transfers of whole cycles waited before the transfer started (rounded up)");
}

Cycles BandwidthChannel::request(Cycles issue, std::int64_t bytes) {
  MARLIN_CHECK(bytes > 0, "a transfer moves at least one byte");
  MARLIN_CHECK(issue >= Cycles(0), "transfers are issued at non-negative cycles");
  // Start: the later of the issue cycle and the end of the previous transfer.
  std::int64_t cycle = free_cycle_;
  std::int64_t fraction = free_fraction_;
  stats_.increment(requests_);
  stats_.add(bytes_, bytes);
  if (issue.count() >= cycle + (fraction > 0 ? 1 : 0)) {
    cycle = issue.count();
    fraction = 0;
  } else {
    stats_.increment(queued_requests_);
    stats_.add(queue_cycles_, cycle + (fraction > 0 ? 1 : 0) - issue.count());
  }
  // n bytes take n * cycles / bytes core cycles: in units of 1/rate_.bytes cycle, n * cycles.
  MARLIN_CHECK(bytes <= INT64_MAX / rate_.cycles, "transfer size fits the channel arithmetic");
  const std::int64_t units = bytes * rate_.cycles;
  if (window_ > Cycles(0)) spread_over_windows(cycle, fraction, units, bytes);
  fraction += units % rate_.bytes;
  cycle += units / rate_.bytes + fraction / rate_.bytes;
  fraction %= rate_.bytes;
  free_cycle_ = cycle;
  free_fraction_ = fraction;
  return idle_from() + latency_;
}

void BandwidthChannel::record_windows(Cycles window) {
  MARLIN_CHECK(window > Cycles(0), "a counter window is at least one cycle");
  window_ = window;
  window_bytes_.clear();
}

double BandwidthChannel::window_bytes(std::int64_t k) const {
  return k >= 0 && static_cast<std::size_t>(k) < window_bytes_.size()
             ? window_bytes_[static_cast<std::size_t>(k)]
             : 0.0;
}

void BandwidthChannel::spread_over_windows(std::int64_t cycle, std::int64_t fraction,
                                           std::int64_t units, std::int64_t bytes) {
  // Times in units of 1/rate_.bytes cycle: the transfer covers [begin, begin + units).
  const std::int64_t per_window = window_.count() * rate_.bytes;
  const std::int64_t begin = cycle * rate_.bytes + fraction;
  const std::int64_t end = begin + units;
  for (std::int64_t k = begin / per_window; k * per_window < end; ++k) {
    const std::int64_t overlap =
        std::min(end, (k + 1) * per_window) - std::max(begin, k * per_window);
    if (static_cast<std::size_t>(k) >= window_bytes_.size()) {
      window_bytes_.resize(static_cast<std::size_t>(k) + 1, 0.0);
    }
    window_bytes_[static_cast<std::size_t>(k)] +=
        static_cast<double>(bytes) * static_cast<double>(overlap) / static_cast<double>(units);
  }
}

Cycles BandwidthChannel::idle_from() const {
  return Cycles(free_cycle_ + (free_fraction_ > 0 ? 1 : 0));
}

double BandwidthChannel::utilization(Cycles elapsed) const {
  if (elapsed <= Cycles(0)) {
    return 0;
  }
  const double transfer_cycles = static_cast<double>(stats_.value(bytes_)) *
                                 static_cast<double>(rate_.cycles) /
                                 static_cast<double>(rate_.bytes);
  return transfer_cycles / static_cast<double>(elapsed.count());
}

}  // namespace marlin::timing
