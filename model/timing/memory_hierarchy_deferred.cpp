// MemoryHierarchy, deferred accesses: access() split into the part its core owns, done at
// once, and the shared part, done later for many cores' requests in the serial order.
#include <algorithm>

#include "model/common/invariant.h"
#include "model/timing/memory_hierarchy.h"

namespace marlin::timing {

Cycles MemoryHierarchy::shared_latency() const {
  return std::min({l2_.hit_latency, slc_.hit_latency, dram_.latency()});
}

std::optional<Cycles> MemoryHierarchy::access_deferred(int core, Cycles cycle, std::uint32_t pass,
                                                       std::uint64_t address, bool is_write,
                                                       DeferredLog& log, SettledHits& hits) {
  MARLIN_CHECK(core >= 0 && core < cores(), "memory access from an existing core");
  const auto c = static_cast<std::size_t>(core);
  Level& l1 = l1_[c];
  std::vector<std::int32_t>& filling = l1_filling_[c];
  if (filling.empty()) filling.assign(l1.fill_ready.size(), -1);
  DeferredAccess a{.cycle = cycle,
                   .pass = pass,
                   .core = core,
                   .kind = DeferredAccess::Kind::kL1Hit,
                   .address = address,
                   .front = cycle,
                   .ready = cycle,
                   .frame = -1,
                   .fill = -1};
  if (is_write) {
    l1.cache->access(address, true);
    a.kind = DeferredAccess::Kind::kStore;
    a.front = links_[c].request(cycle, line_bytes_);
    log.push_back(a);
    return std::nullopt;
  }
  const CacheAccessResult in_l1 = l1.cache->access(address, false);
  const Cycles l1_done = l1_ports_.empty() ? cycle : l1_ports_[c].request(cycle, line_bytes_);
  const auto frame = static_cast<std::size_t>(in_l1.frame);
  if (in_l1.hit) {
    a.front = later(cycle + l1.hit_latency, l1_done);
    if (filling[frame] >= 0) {
      a.kind = DeferredAccess::Kind::kL1HitFill;
      a.fill = filling[frame];
      log.push_back(a);
      return std::nullopt;
    }
    a.kind = DeferredAccess::Kind::kL1Hit;
    a.ready = later(a.front, l1.fill_ready[frame]);
    // Registered only while requests are resolved, never while this runs.
    const std::uint64_t buffer = address >> kBufferAddressShift;
    const bool counted = buffer < kCountedBuffers;
    if (counted && !buffers_[buffer].registered) {
      log.push_back(a);
      return a.ready;
    }
    ++hits.loads;
    if (a.ready > a.front) ++hits.inflight_merges;
    if (counted) ++hits.by_buffer[buffer];
    return a.ready;
  }
  a.kind = DeferredAccess::Kind::kL1Miss;
  a.front = later(links_[c].request(cycle, line_bytes_), l1_done);
  a.frame = in_l1.frame;
  filling[frame] = static_cast<std::int32_t>(log.size());
  log.push_back(a);
  return std::nullopt;
}

void MemoryHierarchy::add_settled_hits(SettledHits& hits) {
  stats_.add(loads_, hits.loads);
  stats_.add(served_[static_cast<std::size_t>(MemoryLevel::kL1)], hits.loads);
  stats_.add(inflight_merges_, hits.inflight_merges);
  for (std::uint64_t buffer = 0; buffer < kCountedBuffers; ++buffer) {
    const std::int64_t n = hits.by_buffer[buffer];
    if (n == 0) continue;
    MARLIN_CHECK(buffers_[buffer].registered, "a settled hit's buffer has its counters");
    buffer_stats_.add(buffers_[buffer].served[static_cast<std::size_t>(MemoryLevel::kL1)], n);
  }
  hits = SettledHits{};
}

void MemoryHierarchy::resolve_one(DeferredLog& log, DeferredAccess& a) {
  MemoryLevel served_by = MemoryLevel::kL1;
  switch (a.kind) {
    case DeferredAccess::Kind::kStore:
      stats_.increment(stores_);
      a.ready = store_below_l1(a.cycle, a.address, later(a.front, through_l2_port(a.cycle)));
      stats_.increment(served_[static_cast<std::size_t>(MemoryLevel::kL2)]);
      return;
    case DeferredAccess::Kind::kL1Hit:
      if (a.ready > a.front) stats_.increment(inflight_merges_);
      break;
    case DeferredAccess::Kind::kL1HitFill: {
      const Cycles fill = log[static_cast<std::size_t>(a.fill)].ready;
      a.ready = a.front;
      if (fill > a.front) {
        stats_.increment(inflight_merges_);
        a.ready = fill;
      }
      break;
    }
    case DeferredAccess::Kind::kL1Miss: {
      const MemoryAccessResult r =
          read_below_l1(a.cycle, a.address, later(a.front, through_l2_port(a.cycle)));
      a.ready = r.ready;
      served_by = r.served_by;
      Level& l1 = l1_[static_cast<std::size_t>(a.core)];
      l1.fill_ready[static_cast<std::size_t>(a.frame)] = a.ready;
      l1_filling_[static_cast<std::size_t>(a.core)][static_cast<std::size_t>(a.frame)] = -1;
      break;
    }
  }
  stats_.increment(loads_);
  count_buffer_load(a.address, served_by);
  stats_.increment(served_[static_cast<std::size_t>(served_by)]);
}

void MemoryHierarchy::resolve_deferred(std::span<DeferredLog* const> logs) {
  // A merge of the logs, each already in (cycle, pass) order; ties go to the lower log.
  std::vector<std::size_t> at(logs.size(), 0);
  for (;;) {
    std::size_t best = logs.size();
    for (std::size_t i = 0; i < logs.size(); ++i) {
      if (at[i] >= logs[i]->size()) continue;
      if (best == logs.size()) {
        best = i;
        continue;
      }
      const DeferredAccess& a = (*logs[i])[at[i]];
      const DeferredAccess& b = (*logs[best])[at[best]];
      if (a.cycle < b.cycle || (a.cycle == b.cycle && a.pass < b.pass)) best = i;
    }
    if (best == logs.size()) return;
    DeferredLog& log = *logs[best];
    // The rest of this log's run at the same (cycle, pass) goes first: its cores are lower.
    const Cycles cycle = log[at[best]].cycle;
    const std::uint32_t pass = log[at[best]].pass;
    while (at[best] < log.size() && log[at[best]].cycle == cycle && log[at[best]].pass == pass) {
      resolve_one(log, log[at[best]++]);
    }
  }
}

}  // namespace marlin::timing
