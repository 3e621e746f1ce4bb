// JSON side of ChromeTraceSink: writes the collected records as Chrome trace events, one event
// per line. Process and thread ids (docs/timing-model.md, "Chrome trace"):
//   core c            pid c + 1; threadgroup slot s: tid s + 1; simdgroup slot k: tid 10000 + k
//   GPU (device-wide) pid cores + 1; launches: tid 1
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "model/timing/chrome_trace.h"

namespace marlin::timing {
namespace {

constexpr int kSimdgroupTidBase = 10000;

// Microseconds with three decimals from whole nanoseconds (exact; no floating point).
std::string micros(std::int64_t ns) {
  const char* sign = ns < 0 ? "-" : "";
  const std::int64_t magnitude = ns < 0 ? -ns : ns;
  return fmt::format("{}{}.{:03}", sign, magnitude / 1000, magnitude % 1000);
}

std::string json_string(std::string_view text) { return nlohmann::json(std::string(text)).dump(); }

// Writes events separated by ",\n".
class EventWriter {
 public:
  explicit EventWriter(std::ostream& out) : out_(out) {}

  void event(const std::string& body) {
    out_ << (first_ ? "\n" : ",\n") << '{' << body << '}';
    first_ = false;
  }
  void process_metadata(int pid, std::string_view name, int sort_index) {
    event(fmt::format(R"("ph":"M","pid":{},"name":"process_name","args":{{"name":{}}})", pid,
                      json_string(name)));
    event(fmt::format(R"("ph":"M","pid":{},"name":"process_sort_index","args":{{"sort_index":{}}})",
                      pid, sort_index));
  }
  void thread_metadata(int pid, int tid, std::string_view name) {
    event(fmt::format(R"("ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":{}}})",
                      pid, tid, json_string(name)));
    event(fmt::format(
        R"("ph":"M","pid":{},"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}})", pid,
        tid, tid));
  }

 private:
  std::ostream& out_;
  bool first_ = true;
};

}  // namespace

void ChromeTraceSink::write(std::ostream& out) const {
  const int gpu_pid = summary_.cores + 1;
  const auto ts = [this](Cycles at) { return micros(nanoseconds(at)); };
  const auto dur = [this](Cycles begin, Cycles end) {
    return micros(nanoseconds(end) - nanoseconds(begin));
  };
  out << R"({"traceEvents":[)";
  EventWriter events(out);

  events.process_metadata(gpu_pid, "GPU", -1);
  events.thread_metadata(gpu_pid, 1, "launches");
  for (int core = 0; core < summary_.cores_traced; ++core) {
    const auto c = static_cast<std::size_t>(core);
    if (!process_used_[c]) continue;
    events.process_metadata(core + 1, fmt::format("core {}", core), core);
    for (int slot = 0; slot < max_slots_; ++slot) {
      if (!slot_track_used_[c * static_cast<std::size_t>(max_slots_) +
                            static_cast<std::size_t>(slot)]) {
        continue;
      }
      events.thread_metadata(core + 1, slot + 1, fmt::format("threadgroup slot {}", slot));
    }
    for (int slot = 0; slot < max_simdgroup_slots_; ++slot) {
      if (!simdgroup_track_used_[c * static_cast<std::size_t>(max_simdgroup_slots_) +
                                 static_cast<std::size_t>(slot)]) {
        continue;
      }
      events.thread_metadata(core + 1, kSimdgroupTidBase + slot,
                             fmt::format("simdgroup slot {}", slot));
    }
  }

  for (const LaunchRecord& l : launches_) {
    const LaunchInfo& info = launch_info_.at(static_cast<std::size_t>(l.launch));
    events.event(fmt::format(R"("ph":"X","pid":{},"tid":1,"name":{},"ts":{},"dur":{},)"
                             R"("args":{{"launch":{},"begin_cycle":{},"end_cycle":{}}})",
                             gpu_pid, json_string(info.kernel), ts(l.begin), dur(l.begin, l.end),
                             l.launch, l.begin.count(), l.end.count()));
  }

  for (const ThreadgroupRecord& g : threadgroups_) {
    const LaunchInfo& info = launch_info_.at(static_cast<std::size_t>(g.launch));
    const std::uint32_t gx = info.grid[0];
    const std::uint32_t gxy = info.grid[0] * info.grid[1];
    const std::string where = fmt::format("tg ({},{},{})", g.threadgroup % gx,
                                          (g.threadgroup / gx) % info.grid[1], g.threadgroup / gxy);
    const int pid = g.core + 1;
    events.event(fmt::format(
        R"("ph":"X","pid":{},"tid":{},"name":{},"ts":{},"dur":{},)"
        R"("args":{{"launch":{},"threadgroup":{},"begin_cycle":{},"end_cycle":{}}})",
        pid, g.slot + 1, json_string(fmt::format("{} {}", where, info.kernel)), ts(g.begin),
        dur(g.begin, g.end), g.launch, g.threadgroup, g.begin.count(), g.end.count()));
    if (!g.sampled) continue;
    // Per simdgroup: a parent slice over the threadgroup's lifetime, then its states in order.
    std::size_t next = 0;
    for (int sg = 0; sg < info.simdgroups_per_threadgroup; ++sg) {
      const int tid = kSimdgroupTidBase + g.slot * info.simdgroups_per_threadgroup + sg;
      events.event(fmt::format(R"("ph":"X","pid":{},"tid":{},"name":"{} sg {}","ts":{},"dur":{})",
                               pid, tid, where, sg, ts(g.begin), dur(g.begin, g.end)));
      for (; next < g.states.size() && g.states[next].simdgroup == sg; ++next) {
        const StateInterval& s = g.states[next];
        events.event(fmt::format(R"("ph":"X","pid":{},"tid":{},"name":"{}","ts":{},"dur":{})", pid,
                                 tid, stall_class_name(s.state), ts(s.begin), dur(s.begin, s.end)));
      }
    }
  }

  for (int core = 0; core < summary_.cores_traced; ++core) {
    for (const CounterSample& c : resident_[static_cast<std::size_t>(core)].samples) {
      events.event(fmt::format(R"("ph":"C","pid":{},"tid":0,"name":"resident simdgroups","ts":{},)"
                               R"("args":{{"simdgroups":{}}})",
                               core + 1, ts(c.at), c.value));
    }
  }
  // DRAM bandwidth: from each sample to the next, the bytes moved over the cycles between them
  // in GB/s; the last sample drops to 0.
  const std::vector<CounterSample>& dram = dram_.samples;
  for (std::size_t i = 0; i < dram.size(); ++i) {
    double gb_per_s = 0;
    if (i + 1 < dram.size()) {
      const auto bytes = static_cast<double>(dram[i + 1].value - dram[i].value);
      const auto cycles = static_cast<double>((dram[i + 1].at - dram[i].at).count());
      gb_per_s = bytes / cycles * clock_hz_ / 1e9;
    }
    events.event(fmt::format(
        R"("ph":"C","pid":{},"tid":0,"name":"DRAM bandwidth","ts":{},"args":{{"GB/s":{}}})",
        gpu_pid, ts(dram[i].at), gb_per_s));
  }

  nlohmann::json kernels = nlohmann::json::array();
  for (const LaunchInfo& info : launch_info_) kernels.push_back(info.kernel);
  const nlohmann::json other = {
      {"generator", "marlin-sim timing model"},
      {"time_unit", "ts and dur: microseconds of simulated time, rounded to whole nanoseconds"},
      {"clock_hz", clock_hz_},
      {"kernels", kernels},
      {"cores", summary_.cores},
      {"cores_traced", summary_.cores_traced},
      {"threadgroup_stride", options_.threadgroup_stride},
      {"max_events", options_.max_events},
      {"events", summary_.events},
      {"omitted_events", summary_.omitted_events},
      {"truncated", summary_.truncated},
      {"dropped_events", summary_.dropped_events},
      {"truncated_at_cycle", summary_.truncated ? summary_.truncated_at.count() : 0},
      {"truncated_at_us",
       summary_.truncated ? static_cast<double>(nanoseconds(summary_.truncated_at)) / 1000.0 : 0.0},
  };
  out << "\n],\n\"otherData\":" << other.dump() << "}\n";
}

}  // namespace marlin::timing
