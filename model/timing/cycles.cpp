#include "model/timing/cycles.h"

#include <cmath>
#include <limits>
#include <string>

#include "model/common/input_error.h"
#include "model/device/device_math.h"

namespace marlin::timing {

double to_seconds(Cycles cycles, const model::GpuSpec& gpu) {
  return model::cycles_to_seconds(gpu, static_cast<double>(cycles.count()));
}

Cycles cycles_ceil_from_seconds(double seconds, const model::GpuSpec& gpu) {
  // A product meant to be a whole number may land a hair above it (10e-6 s * 1.578e9 Hz); such
  // values within 1e-6 cycle of an integer round down to it.
  constexpr double kTolerance = 1e-6;
  const double cycles = std::ceil(model::seconds_to_cycles(gpu, seconds) - kTolerance);
  // 2^62 leaves room for later additions without overflow.
  constexpr double kLimit = 4.6e18;
  if (!std::isfinite(cycles) || seconds < 0 || cycles < 0 || cycles > kLimit) {
    throw InputError("duration of " + std::to_string(seconds) +
                     " s is not a representable non-negative number of core cycles");
  }
  return Cycles(static_cast<std::int64_t>(cycles));
}

}  // namespace marlin::timing
