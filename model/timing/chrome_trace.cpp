// Collection side of ChromeTraceSink: turns the timing model's events into threadgroup
// records (with their stall-state intervals), launch records and counter samples, applying the
// sampling options and the event bound as events arrive. The JSON side is chrome_trace_json.cpp.
#include "model/timing/chrome_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "model/common/input_error.h"
#include "model/common/invariant.h"

namespace marlin::timing {
namespace {

std::uint64_t volume(const std::array<std::uint32_t, 3>& d) {
  return static_cast<std::uint64_t>(d[0]) * d[1] * d[2];
}

}  // namespace

ChromeTraceSink::ChromeTraceSink(const model::GpuSpec& gpu, std::span<const LaunchInput> launches,
                                 ChromeTraceOptions options)
    : clock_hz_(gpu.clock_hz), options_(options) {
  if (!(gpu.clock_hz > 0) || gpu.cores < 1 || gpu.simd_width < 1) {
    throw InputError("Chrome trace: the device needs a positive clock, core count and SIMD width");
  }
  if (options.max_events < 1) {
    throw InputError(
        fmt::format("Chrome trace: max_events must be at least 1 (got {})", options.max_events));
  }
  if (options.max_cores < 0) {
    throw InputError(fmt::format("Chrome trace: max_cores must be 0 (all) or positive (got {})",
                                 options.max_cores));
  }
  if (options.threadgroup_stride < 1) {
    throw InputError(fmt::format("Chrome trace: threadgroup_stride must be at least 1 (got {})",
                                 options.threadgroup_stride));
  }
  summary_.cores = gpu.cores;
  summary_.cores_traced =
      options.max_cores == 0 ? gpu.cores : std::min(options.max_cores, gpu.cores);
  const auto width = static_cast<std::uint64_t>(gpu.simd_width);
  for (const LaunchInput& input : launches) {
    MARLIN_CHECK(input.trace != nullptr, "every launch of a traced run has a trace");
    LaunchInfo info;
    info.kernel = input.trace->kernel;
    info.grid = input.trace->threadgroups_per_grid;
    info.simdgroups_per_threadgroup =
        static_cast<int>((volume(input.trace->threads_per_threadgroup) + width - 1) / width);
    info.resident_threadgroups = input.resident_threadgroups_per_core;
    max_slots_ = std::max(max_slots_, info.resident_threadgroups);
    max_simdgroup_slots_ = std::max(max_simdgroup_slots_,
                                    info.resident_threadgroups * info.simdgroups_per_threadgroup);
    launch_info_.push_back(std::move(info));
  }
  // Reserved for metadata: the GPU process's name and sort index and its launches track's name
  // and sort index; per traced core, the same for the process and every track it may use. Only
  // the tracks that receive events are named in the file, so the file holds at most this.
  const std::int64_t metadata_bound = 4 + static_cast<std::int64_t>(summary_.cores_traced) *
                                              (2 + 2 * max_slots_ + 2 * max_simdgroup_slots_);
  // Always written: the metadata, one event per launch and the DRAM counter's first sample.
  const std::int64_t reserved = metadata_bound + static_cast<std::int64_t>(launch_info_.size()) + 1;
  if (reserved > options.max_events) {
    throw InputError(fmt::format(
        "Chrome trace: max_events {} cannot hold the {} metadata and launch events of {} traced "
        "cores; trace fewer cores or allow more events",
        options.max_events, reserved, summary_.cores_traced));
  }
  budget_ = options.max_events - reserved;
  summary_.metadata_events = 4;
  summary_.launch_events = static_cast<std::int64_t>(launch_info_.size());
  summary_.counter_events = 1;
  summary_.events = summary_.metadata_events + summary_.launch_events + 1;
  const auto cores = static_cast<std::size_t>(summary_.cores_traced);
  process_used_.assign(cores, false);
  slot_track_used_.assign(cores * static_cast<std::size_t>(max_slots_), false);
  simdgroup_track_used_.assign(cores * static_cast<std::size_t>(max_simdgroup_slots_), false);
  dram_.samples.push_back({Cycles(0), 0});
  dram_.last_at = 0;
  resident_.resize(static_cast<std::size_t>(summary_.cores_traced));
  pending_.resize(static_cast<std::size_t>(summary_.cores_traced) *
                  static_cast<std::size_t>(max_slots_));
}

std::int64_t ChromeTraceSink::nanoseconds(Cycles at) const {
  return std::llround(static_cast<long double>(at.count()) * 1e9L /
                      static_cast<long double>(clock_hz_));
}

void ChromeTraceSink::use_track(std::vector<bool>& used, std::size_t index) {
  if (used[index]) return;
  used[index] = true;
  summary_.metadata_events += 2;  // name and sort index
  summary_.events += 2;
}

bool ChromeTraceSink::admit(std::int64_t cost, Cycles at) {
  if (!summary_.truncated && cost <= budget_) {
    budget_ -= cost;
    summary_.events += cost;
    return true;
  }
  if (!summary_.truncated) {
    summary_.truncated = true;
    summary_.truncated_at = at;
  }
  summary_.dropped_events += cost;
  return false;
}

std::vector<ChromeTraceSink::StateInterval>& ChromeTraceSink::pending(int core,
                                                                      int threadgroup_slot) {
  MARLIN_CHECK(threadgroup_slot >= 0 && threadgroup_slot < max_slots_,
               "a threadgroup slot of the event sink is within the launch's residency");
  return pending_[static_cast<std::size_t>(core) * static_cast<std::size_t>(max_slots_) +
                  static_cast<std::size_t>(threadgroup_slot)];
}

void ChromeTraceSink::on_launch(int launch, std::string_view /*kernel*/, Cycles begin, Cycles end) {
  launches_.push_back({launch, begin, end});  // reserved in the constructor
  current_launch_ = launch + 1;
}

void ChromeTraceSink::on_simdgroup_state(int core, int simdgroup_slot, StallClass state,
                                         Cycles begin, Cycles end) {
  if (!traced(core)) {
    ++summary_.omitted_events;
    return;
  }
  MARLIN_CHECK(current_launch_ < static_cast<int>(launch_info_.size()),
               "simdgroup states belong to a launch the sink was built with");
  const int sgs =
      launch_info_[static_cast<std::size_t>(current_launch_)].simdgroups_per_threadgroup;
  pending(core, simdgroup_slot / sgs).push_back({simdgroup_slot % sgs, state, begin, end});
}

void ChromeTraceSink::on_threadgroup(int launch, int core, int slot, std::uint32_t threadgroup,
                                     Cycles begin, Cycles end) {
  const int sgs = launch_info_.at(static_cast<std::size_t>(launch)).simdgroups_per_threadgroup;
  if (!traced(core)) {
    summary_.omitted_events += 1 + sgs;
    return;
  }
  std::vector<StateInterval>& states = pending(core, slot);
  const auto state_count = static_cast<std::int64_t>(states.size());
  const bool sampled = threadgroup % static_cast<std::uint32_t>(options_.threadgroup_stride) == 0;
  if (!sampled) summary_.omitted_events += sgs + state_count;
  const std::int64_t cost = 1 + (sampled ? sgs + state_count : 0);
  if (admit(cost, end)) {
    ThreadgroupRecord record{launch, core, slot, threadgroup, begin, end, sampled, {}};
    if (sampled) {
      std::sort(states.begin(), states.end(), [](const StateInterval& a, const StateInterval& b) {
        return a.simdgroup != b.simdgroup ? a.simdgroup < b.simdgroup : a.begin < b.begin;
      });
      record.states = std::move(states);
      summary_.simdgroup_events += sgs + state_count;
    }
    ++summary_.threadgroup_events;
    threadgroups_.push_back(std::move(record));
    const auto c = static_cast<std::size_t>(core);
    use_track(process_used_, c);
    use_track(slot_track_used_,
              c * static_cast<std::size_t>(max_slots_) + static_cast<std::size_t>(slot));
    for (int i = 0; sampled && i < sgs; ++i) {
      use_track(simdgroup_track_used_, c * static_cast<std::size_t>(max_simdgroup_slots_) +
                                           static_cast<std::size_t>(slot * sgs + i));
    }
  }
  states = {};
}

void ChromeTraceSink::store_counter(CounterSeries& series, Cycles at, std::int64_t value) {
  const bool same_cycle = series.last_at == at.count();
  series.last_at = at.count();
  if (same_cycle) {
    // Merged with the previous sample: the later value wins (if that sample was kept).
    if (!series.samples.empty() && series.samples.back().at == at) {
      series.samples.back().value = value;
    }
    return;
  }
  if (admit(1, at)) {
    series.samples.push_back({at, value});
    ++summary_.counter_events;
  }
}

void ChromeTraceSink::on_counter(TimingCounter counter, int core, Cycles at, std::int64_t value) {
  switch (counter) {
    case TimingCounter::kResidentSimdgroups:
      if (traced(core)) {
        store_counter(resident_[static_cast<std::size_t>(core)], at, value);
        if (!resident_[static_cast<std::size_t>(core)].samples.empty()) {
          use_track(process_used_, static_cast<std::size_t>(core));
        }
      }
      return;
    case TimingCounter::kDramBytes:
      store_counter(dram_, at, value);
      return;
  }
}

}  // namespace marlin::timing
