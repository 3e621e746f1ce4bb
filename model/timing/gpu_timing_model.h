// GpuTimingModel: the cycle-approximate timing model of one device. It replays the execution
// engine's per-simdgroup traces of one launch, or of a sequence of dependent launches run back
// to back, and reports cycles, occupancy, the stall breakdown, unit utilizations and hit rates.
//
// Contract: run() takes launches whose traces (or streams) outlive the call and returns plain
// results (timing_run.h); nothing is printed. Each run starts from a cold device (empty caches,
// idle channels); launches within a run share the device, so later launches see the caches the
// earlier ones left. Bad input (invalid profile numbers, inconsistent traces, zero residency)
// throws InputError. The same inputs always give the same results, bit for bit.
// See docs/timing-model.md.
#pragma once

#include <span>

#include "model/device/device_spec.h"
#include "model/timing/timing_event_sink.h"
#include "model/timing/timing_run.h"

namespace marlin::timing {

class GpuTimingModel {
 public:
  // Keeps a copy of the device spec; validates the parts it uses (InputError).
  explicit GpuTimingModel(const model::DeviceSpec& device, TimingOptions options = {});

  // Replays `launches` in order. `sink`, when given, receives threadgroup lifetimes, stall-state
  // intervals and counters (timing_event_sink.h). A launch may come as a trace stream
  // (LaunchInput::stream); when run() fails it aborts every stream of `launches`, so that an
  // engine feeding one stops too.
  [[nodiscard]] TimingResult run(std::span<const LaunchInput> launches,
                                 TimingEventSink* sink = nullptr) const;

  // One launch.
  [[nodiscard]] TimingResult run(const LaunchInput& launch, TimingEventSink* sink = nullptr) const {
    return run(std::span<const LaunchInput>(&launch, 1), sink);
  }

 private:
  TimingResult replay(std::span<const LaunchInput> launches, TimingEventSink* sink) const;

  model::DeviceSpec device_;
  TimingOptions options_;
};

}  // namespace marlin::timing
