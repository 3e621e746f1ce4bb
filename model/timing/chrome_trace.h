// ChromeTraceSink: a TimingEventSink that collects a timing run and writes it as a Chrome
// trace-event JSON file (the {"traceEvents": [...]} format) that ui.perfetto.dev and
// chrome://tracing open.
//
// Layout (docs/timing-model.md, "Chrome trace"): one process per core with one track per
// threadgroup slot (threadgroup lifetimes) and one track per simdgroup slot (for each sampled
// threadgroup, a parent slice spanning its lifetime with its stall-state slices nested inside),
// a "resident simdgroups" counter per core, and a "GPU" process with the launches and a
// device-wide DRAM bandwidth counter. Timestamps are microseconds of simulated time from the
// device clock, rounded to whole nanoseconds: ts(c) = round(c * 1e9 / clock_hz) / 1000.
//
// Contract: pass the sink to GpuTimingModel::run() with the same launches it was built from,
// then call write(). The file never holds more than options.max_events events (metadata
// included); events past the bound are dropped in simulation order (everything after the cut
// cycle) and counted, and the file says so in "otherData". Sampling (first N cores, every k-th
// threadgroup's simdgroup tracks) omits events without truncating. Nothing is printed.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "model/device/device_spec.h"
#include "model/timing/timing_event_sink.h"
#include "model/timing/timing_run.h"

namespace marlin::timing {

struct ChromeTraceOptions {
  std::int64_t max_events = 1'000'000;  // bound on the events of the file, metadata included
  int max_cores = 0;                    // trace cores 0..max_cores-1 only; 0 = every core
  int threadgroup_stride = 1;           // simdgroup tracks of threadgroups whose index % k == 0
};

// What the file holds and what was left out (counts of trace events).
struct ChromeTraceSummary {
  std::int64_t events = 0;              // events in "traceEvents", metadata included
  std::int64_t metadata_events = 0;     // names and sort indices of the tracks with events
  std::int64_t launch_events = 0;       // one per launch (GPU process)
  std::int64_t threadgroup_events = 0;  // threadgroup lifetimes
  std::int64_t simdgroup_events = 0;    // simdgroup parents and stall-state intervals
  std::int64_t counter_events = 0;      // resident simdgroups and DRAM bandwidth samples
  std::int64_t omitted_events = 0;      // left out by sampling (cores, threadgroup stride)
  bool truncated = false;               // the max_events bound cut the trace
  std::int64_t dropped_events = 0;      // events cut by the bound
  Cycles truncated_at;                  // simulated cycle of the first dropped event
  int cores_traced = 0;                 // cores with a process in the file
  int cores = 0;                        // cores of the device
};

class ChromeTraceSink final : public TimingEventSink {
 public:
  // `launches` must be the launches given to run(), with valid traces. Throws InputError if an
  // option is out of range or max_events cannot hold the metadata of the traced cores.
  ChromeTraceSink(const model::GpuSpec& gpu, std::span<const LaunchInput> launches,
                  ChromeTraceOptions options = {});

  void on_launch(int launch, std::string_view kernel, Cycles begin, Cycles end) override;
  void on_threadgroup(int launch, int core, int slot, std::uint32_t threadgroup, Cycles begin,
                      Cycles end) override;
  void on_simdgroup_state(int core, int simdgroup_slot, StallClass state, Cycles begin,
                          Cycles end) override;
  void on_counter(TimingCounter counter, int core, Cycles at, std::int64_t value) override;

  // Writes the JSON document. Call after run() has returned.
  void write(std::ostream& out) const;

  // Counts of what write() writes; complete after run() has returned.
  [[nodiscard]] const ChromeTraceSummary& summary() const { return summary_; }

  // Trace timestamp of a cycle in whole nanoseconds of simulated time.
  [[nodiscard]] std::int64_t nanoseconds(Cycles at) const;

 private:
  struct LaunchInfo {
    std::string kernel;
    std::array<std::uint32_t, 3> grid{};
    int simdgroups_per_threadgroup = 0;
    int resident_threadgroups = 0;
  };
  struct StateInterval {
    int simdgroup = 0;  // index within the threadgroup
    StallClass state = StallClass::kIdle;
    Cycles begin;
    Cycles end;
  };
  struct ThreadgroupRecord {
    int launch = 0;
    int core = 0;
    int slot = 0;
    std::uint32_t threadgroup = 0;
    Cycles begin;
    Cycles end;
    bool sampled = false;               // its simdgroup tracks are written
    std::vector<StateInterval> states;  // sorted by (simdgroup, begin) when sampled
  };
  struct CounterSample {
    Cycles at;
    std::int64_t value = 0;
  };
  // One counter's samples; last_at is the cycle of the last sample seen, kept or dropped.
  struct CounterSeries {
    std::vector<CounterSample> samples;
    std::int64_t last_at = -1;
  };
  struct LaunchRecord {
    int launch = 0;
    Cycles begin;
    Cycles end;
  };

  [[nodiscard]] bool traced(int core) const { return core >= 0 && core < summary_.cores_traced; }
  // Keeps an item of `cost` events if the bound allows it; otherwise starts the cut at `at`.
  bool admit(std::int64_t cost, Cycles at);
  // Appends a sample, or replaces the last one if it has the same cycle (costs no event).
  void store_counter(CounterSeries& series, Cycles at, std::int64_t value);
  [[nodiscard]] std::vector<StateInterval>& pending(int core, int threadgroup_slot);
  // Marks a process or track as named in the file (2 metadata events the first time).
  void use_track(std::vector<bool>& used, std::size_t index);

  double clock_hz_;
  ChromeTraceOptions options_;
  std::vector<LaunchInfo> launch_info_;
  int max_slots_ = 0;            // threadgroup slots per core, largest over the launches
  int max_simdgroup_slots_ = 0;  // simdgroup slots per core, largest over the launches
  int current_launch_ = 0;       // launches end in order; events before on_launch(i) are of i
  std::int64_t budget_ = 0;      // events still allowed
  std::vector<std::vector<StateInterval>> pending_;  // per (traced core, threadgroup slot)
  std::vector<LaunchRecord> launches_;
  std::vector<ThreadgroupRecord> threadgroups_;
  std::vector<CounterSeries> resident_;     // per traced core: resident simdgroups
  CounterSeries dram_;                      // cumulative DRAM bytes, from (cycle 0, 0 bytes)
  std::vector<bool> process_used_;          // per traced core
  std::vector<bool> slot_track_used_;       // per (traced core, threadgroup slot)
  std::vector<bool> simdgroup_track_used_;  // per (traced core, simdgroup slot)
  ChromeTraceSummary summary_;
};

}  // namespace marlin::timing
