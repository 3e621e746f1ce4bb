#include "kernels/calibration/calibration_launch.h"

#include <fmt/format.h>

#include "model/analytic/occupancy.h"
#include "model/common/input_error.h"
#include "model/timing/gpu_timing_model.h"

namespace marlin::calibration {

std::int64_t launch_cycles(const model::DeviceSpec& device, const CalibLaunch& launch) {
  sim::LaunchSpec spec;
  spec.kernel = launch.kernel;
  spec.threadgroups = launch.threadgroups;
  spec.threads_per_threadgroup = launch.threads_per_threadgroup;
  spec.buffers = launch.buffers;
  spec.limits = {static_cast<std::uint32_t>(device.limits.max_threads_per_threadgroup),
                 static_cast<std::uint64_t>(device.limits.max_threadgroup_memory_bytes)};
  const sim::LaunchResult result = sim::launch(spec);

  const analytic::OccupancyResult occupancy =
      analytic::launch_occupancy(device, static_cast<int>(launch.threads_per_threadgroup.volume()),
                                 static_cast<std::int64_t>(result.threadgroup_memory_bytes));
  if (occupancy.refused) {
    throw InputError(
        fmt::format("{} refuses {}: {}", device.name, launch.kernel, occupancy.refusal_reason));
  }
  timing::LaunchInput input;
  input.trace = &result.trace;
  input.resident_threadgroups_per_core = static_cast<int>(occupancy.resident_threadgroups);
  input.new_command_buffer = launch.new_command_buffer;
  return timing::GpuTimingModel(device).run(input).total_cycles.count();
}

}  // namespace marlin::calibration
