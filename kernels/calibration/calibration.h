// Calibration self-test of the timing model: runs the microbenchmarks of
// kernels/calibration/*.metal on the execution engine for one device, replays each launch
// with timing::GpuTimingModel and derives the parameter the microbenchmark measures, the way
// a user derives it from GPU timestamps on a Mac (docs/calibration.md).
//
// Contract: run_calibration() is deterministic (same device, same results bit for bit) and
// needs the kernel objects of marlin_calibration_programs linked into the executable. Each
// result compares the measured value with the value the profile's parameters give.
#pragma once

#include <string>
#include <vector>

#include "model/device/device_spec.h"

namespace marlin::calibration {

struct CalibrationResult {
  std::string name;       // e.g. "fp32_fma.throughput"
  std::string unit;       // e.g. "cycles", "B/s"
  double profile_value;   // what the profile's parameters say the microbenchmark should find
  double measured_value;  // what the microbenchmark finds on the simulated device
  double relative_error;  // |measured - profile| / profile
  // False when the model, by design, cannot show this parameter to this microbenchmark; then
  // `note` says why, and profile_value is still the profile's figure.
  bool measurable = true;
  std::string note;
};

// Runs every microbenchmark on `device`, in a fixed order (the table of docs/calibration.md).
std::vector<CalibrationResult> run_calibration(const model::DeviceSpec& device);

}  // namespace marlin::calibration
