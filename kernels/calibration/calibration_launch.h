// One microbenchmark launch: run a calibration kernel on the execution engine and replay its
// trace with the timing model of a device.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "kernels/calibration/calibration_params.h"
#include "model/device/device_spec.h"
#include "sim/runtime/launch.h"

namespace marlin::calibration {

struct CalibLaunch {
  std::string kernel;
  sim::Dim3 threadgroups;
  sim::Dim3 threads_per_threadgroup;
  std::map<std::uint32_t, sim::BufferArg> buffers;
  bool new_command_buffer = false;
};

// Core cycles of the launch on `device` (dispatch overhead included), resident threadgroups
// per core from the device's occupancy rule. Throws InputError if the device refuses it.
std::int64_t launch_cycles(const model::DeviceSpec& device, const CalibLaunch& launch);

}  // namespace marlin::calibration
