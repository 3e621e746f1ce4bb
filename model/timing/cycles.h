// Typed time of the timing model: a count of core-clock cycles.
//
// Contract: every time and duration inside model/timing is a Cycles value of the core clock
// (GpuSpec::clock_hz). Rates of other clock domains (DRAM bytes per second, for example) are
// converted to core cycles once, when a component is built. Cycles convert to seconds only
// through to_seconds(), which uses the device clock (model/device/device_math.h).
#pragma once

#include <compare>
#include <cstdint>

#include "model/device/device_spec.h"

namespace marlin::timing {

class Cycles {
 public:
  constexpr Cycles() = default;
  constexpr explicit Cycles(std::int64_t count) : count_(count) {}

  // The raw count; use it for printing and for counters, not to build other times.
  [[nodiscard]] constexpr std::int64_t count() const { return count_; }

  constexpr Cycles& operator+=(Cycles other) {
    count_ += other.count_;
    return *this;
  }
  constexpr Cycles& operator-=(Cycles other) {
    count_ -= other.count_;
    return *this;
  }
  friend constexpr Cycles operator+(Cycles a, Cycles b) { return Cycles(a.count_ + b.count_); }
  friend constexpr Cycles operator-(Cycles a, Cycles b) { return Cycles(a.count_ - b.count_); }
  // Scaling a duration by a count (n operations of d cycles each).
  friend constexpr Cycles operator*(Cycles d, std::int64_t n) { return Cycles(d.count_ * n); }
  friend constexpr Cycles operator*(std::int64_t n, Cycles d) { return Cycles(d.count_ * n); }
  friend constexpr bool operator==(Cycles a, Cycles b) = default;
  friend constexpr auto operator<=>(Cycles a, Cycles b) = default;

 private:
  std::int64_t count_ = 0;
};

// The later (larger) and the earlier (smaller) of two times. By value, unlike std::max and
// std::min, so that the hot paths of the replay compile them to conditional moves.
constexpr Cycles later(Cycles a, Cycles b) { return a < b ? b : a; }
constexpr Cycles earlier(Cycles a, Cycles b) { return b < a ? b : a; }

// Core-clock cycles to seconds with the device clock (device_math.h's cycles_to_seconds).
double to_seconds(Cycles cycles, const model::GpuSpec& gpu);

// Seconds to whole core-clock cycles, rounded up (a cost of any positive duration takes at
// least one cycle; values within 1e-6 cycle above a whole number round down to it, absorbing
// floating-point error). Throws InputError if seconds is negative or the result does not fit.
Cycles cycles_ceil_from_seconds(double seconds, const model::GpuSpec& gpu);

}  // namespace marlin::timing
