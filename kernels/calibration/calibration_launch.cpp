#include "kernels/calibration/calibration_launch.h"

#include <fmt/format.h>
#include <map>
#include <string_view>
#include <algorithm>
#include "model/timing/timing_event_sink.h"

#include "model/analytic/occupancy.h"
#include "model/common/input_error.h"
#include "model/timing/gpu_timing_model.h"

namespace marlin::calibration {
namespace {
struct DbgSink : timing::TimingEventSink {
  std::map<int, std::int64_t> last_issue;
  std::map<int, std::int64_t> end;
  void on_launch(int, std::string_view, timing::Cycles, timing::Cycles) override {}
  void on_threadgroup(int, int, int, std::uint32_t, timing::Cycles, timing::Cycles) override {}
  void on_simdgroup_state(int, int slot, timing::StallClass st, timing::Cycles, timing::Cycles e) override {
    if (st == timing::StallClass::kIssuing) last_issue[slot] = e.count();
    end[slot] = std::max(end[slot], e.count());
  }
  void on_counter(timing::TimingCounter, int, timing::Cycles, std::int64_t) override {}
};
}

std::int64_t launch_cycles(const model::DeviceSpec& device, const CalibLaunch& launch) {
  sim::LaunchSpec spec;
  spec.kernel = launch.kernel;
  spec.threadgroups = launch.threadgroups;
  spec.threads_per_threadgroup = launch.threads_per_threadgroup;
  spec.buffers = launch.buffers;
  spec.limits = {static_cast<std::uint32_t>(device.limits.max_threads_per_threadgroup),
                 static_cast<std::uint64_t>(device.limits.max_threadgroup_memory_bytes)};
  const sim::LaunchResult result = sim::launch(spec);

  analytic::OccupancyQuery query;
  query.threads_per_threadgroup = static_cast<int>(launch.threads_per_threadgroup.volume());
  query.threadgroup_memory_bytes = static_cast<std::int64_t>(result.threadgroup_memory_bytes);
  const analytic::OccupancyResult occupancy =
      analytic::compute_occupancy(query, analytic::occupancy_spec_of(device));
  if (occupancy.refused) {
    throw InputError(fmt::format("{} refuses {}: {}", device.name, launch.kernel,
                                 occupancy.refusal_reason));
  }
  timing::LaunchInput input;
  input.trace = &result.trace;
  input.resident_threadgroups_per_core = static_cast<int>(occupancy.resident_threadgroups);
  input.new_command_buffer = launch.new_command_buffer;
  if (launch.kernel == "calib_tg_load_stride1" && launch.threads_per_threadgroup.x == 1024) {
    DbgSink sink;
    const auto res = timing::GpuTimingModel(device).run(input, &sink);
    fmt::print("DBG total {}\n", res.total_cycles.count());
    for (auto& [k, v] : sink.end) fmt::print(" sg{}:{}", k, v);
    fmt::print("\n");
  }
  return timing::GpuTimingModel(device).run(input).total_cycles.count();
}

}  // namespace marlin::calibration
