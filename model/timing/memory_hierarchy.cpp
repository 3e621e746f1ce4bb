#include "model/timing/memory_hierarchy.h"

#include <string>

#include "model/common/input_error.h"
#include "model/common/invariant.h"

namespace marlin::timing {
namespace {

Cycles latency_of(int cycles, const std::string& what) {
  if (cycles < 0) {
    throw InputError(what + " must not be negative (got " + std::to_string(cycles) + ")");
  }
  return Cycles(cycles);
}

}  // namespace

std::string_view to_string(MemoryLevel level) {
  switch (level) {
    case MemoryLevel::kL1:
      return "l1";
    case MemoryLevel::kL2:
      return "l2";
    case MemoryLevel::kSlc:
      return "slc";
    case MemoryLevel::kDram:
      return "dram";
  }
  return "unknown";
}

MemoryHierarchy::Level MemoryHierarchy::make_level(const model::CacheSpec& spec, WritePolicy policy,
                                                   const std::string& name) {
  Level level;
  level.cache = make_cache(spec, policy, name);
  level.fill_ready.resize(static_cast<std::size_t>(level.cache->frames()));
  level.hit_latency = latency_of(spec.hit_latency_cycles, name + ".hit_latency_cycles");
  return level;
}

MemoryHierarchy::MemoryHierarchy(const model::MemorySpec& memory, const model::GpuSpec& gpu)
    : line_bytes_(memory.l1.line_bytes),
      l2_(make_level(memory.l2, WritePolicy::kWriteBackAllocate, "memory.l2")),
      slc_(make_level(memory.slc, WritePolicy::kWriteBackAllocate, "memory.slc")),
      dram_(TransferRate::from_bytes_per_second(memory.dram_bandwidth_bytes_per_s, gpu.clock_hz,
                                                "memory.dram_bandwidth_bytes_per_s"),
            latency_of(memory.dram_latency_cycles, "memory.dram_latency_cycles")) {
  if (gpu.cores <= 0) {
    throw InputError("gpu.cores must be positive (got " + std::to_string(gpu.cores) + ")");
  }
  if (memory.l2.line_bytes != line_bytes_ || memory.slc.line_bytes != line_bytes_) {
    throw InputError("memory: l1, l2 and slc line_bytes must be equal (got " +
                     std::to_string(memory.l1.line_bytes) + ", " +
                     std::to_string(memory.l2.line_bytes) + ", " +
                     std::to_string(memory.slc.line_bytes) + ")");
  }
  const TransferRate link_rate = TransferRate::from_bytes_per_cycle(
      memory.core_to_l2_bytes_per_cycle, "memory.core_to_l2_bytes_per_cycle");
  for (int core = 0; core < gpu.cores; ++core) {
    l1_.push_back(make_level(memory.l1, WritePolicy::kWriteThroughNoAllocate, "memory.l1"));
    links_.emplace_back(link_rate, Cycles(0));
  }
  l1_filling_.resize(static_cast<std::size_t>(gpu.cores));
  // Ports: 0 = not modelled; a negative rate is an error.
  const auto port_rate = [](double bytes_per_cycle, const std::string& what) {
    if (bytes_per_cycle < 0) {
      throw InputError(what + " must not be negative (got " + std::to_string(bytes_per_cycle) +
                       ")");
    }
    return TransferRate::from_bytes_per_cycle(bytes_per_cycle, what);
  };
  if (memory.l1_bytes_per_cycle != 0) {
    const TransferRate l1_rate = port_rate(memory.l1_bytes_per_cycle, "memory.l1_bytes_per_cycle");
    for (int core = 0; core < gpu.cores; ++core) l1_ports_.emplace_back(l1_rate, Cycles(0));
  }
  if (memory.l2_bytes_per_cycle != 0) {
    l2_port_.emplace_back(port_rate(memory.l2_bytes_per_cycle, "memory.l2_bytes_per_cycle"),
                          Cycles(0));
  }
  loads_ = stats_.add_counter("loads", "line requests", "line loads from all cores");
  stores_ = stats_.add_counter("stores", "line requests", "line stores from all cores");
  for (const MemoryLevel level :
       {MemoryLevel::kL1, MemoryLevel::kL2, MemoryLevel::kSlc, MemoryLevel::kDram}) {
    served_[static_cast<std::size_t>(level)] =
        stats_.add_counter("served_" + std::string(to_string(level)), "line requests",
                           "requests whose data came from " + std::string(to_string(level)));
  }
  inflight_merges_ = stats_.add_counter(
      "inflight_merges", "line requests",
      "hits on a line whose fill was still in flight, made to wait for that fill");
  dram_writebacks_ =
      stats_.add_counter("dram_writebacks", "lines", "dirty lines written from the SLC to DRAM");
}

Cycles MemoryHierarchy::hit_ready(const Level& level, std::int64_t frame, Cycles earliest) {
  const Cycles fill = level.fill_ready[static_cast<std::size_t>(frame)];
  if (fill > earliest) {
    stats_.increment(inflight_merges_);
    return fill;
  }
  return earliest;
}

MemoryAccessResult MemoryHierarchy::access(int core, Cycles cycle, std::uint64_t address,
                                           bool is_write) {
  MARLIN_CHECK(core >= 0 && core < cores(), "memory access from an existing core");
  Level& l1 = l1_[static_cast<std::size_t>(core)];
  BandwidthChannel& link = links_[static_cast<std::size_t>(core)];
  MemoryAccessResult result;
  if (is_write) {
    // Write-through L1 (updates a present line, no allocation); the store is served by L2.
    stats_.increment(stores_);
    l1.cache->access(address, true);
    const Cycles link_done = later(link.request(cycle, line_bytes_), through_l2_port(cycle));
    result = {store_below_l1(cycle, address, link_done), MemoryLevel::kL2};
  } else {
    stats_.increment(loads_);
    const CacheAccessResult in_l1 = l1.cache->access(address, false);
    const Cycles l1_done =
        l1_ports_.empty() ? cycle
                          : l1_ports_[static_cast<std::size_t>(core)].request(cycle, line_bytes_);
    if (in_l1.hit) {
      result = {hit_ready(l1, in_l1.frame, later(cycle + l1.hit_latency, l1_done)),
                MemoryLevel::kL1};
    } else {
      // The line crosses the link and the L2 port, and reaches the core through the L1 port.
      const Cycles link_done =
          later(later(link.request(cycle, line_bytes_), through_l2_port(cycle)), l1_done);
      result = read_below_l1(cycle, address, link_done);
      l1.fill_ready[static_cast<std::size_t>(in_l1.frame)] = result.ready;
    }
    count_buffer_load(address, result.served_by);
  }
  stats_.increment(served_[static_cast<std::size_t>(result.served_by)]);
  return result;
}

Cycles MemoryHierarchy::store_below_l1(Cycles cycle, std::uint64_t address, Cycles link_done) {
  if (l2_lines_ != nullptr) l2_lines_->push_back(address / static_cast<unsigned>(line_bytes_));
  const CacheAccessResult in_l2 = l2_.cache->access(address, true);
  const Cycles ready = later(cycle + l2_.hit_latency, link_done);
  if (!in_l2.hit) {
    l2_.fill_ready[static_cast<std::size_t>(in_l2.frame)] = ready;
  }
  if (in_l2.writeback) {
    write_back_from_l2(cycle, in_l2.writeback_address);
  }
  return ready;
}

Cycles MemoryHierarchy::through_l2_port(Cycles cycle) {
  return l2_port_.empty() ? cycle : l2_port_.front().request(cycle, line_bytes_);
}

double MemoryHierarchy::l1_port_utilization(int core, Cycles elapsed) const {
  return l1_ports_.empty() ? 0.0 : l1_ports_[static_cast<std::size_t>(core)].utilization(elapsed);
}

double MemoryHierarchy::l2_port_utilization(Cycles elapsed) const {
  return l2_port_.empty() ? 0.0 : l2_port_.front().utilization(elapsed);
}

MemoryAccessResult MemoryHierarchy::read_below_l1(Cycles cycle, std::uint64_t address,
                                                  Cycles link_done) {
  if (l2_lines_ != nullptr) l2_lines_->push_back(address / static_cast<unsigned>(line_bytes_));
  const CacheAccessResult in_l2 = l2_.cache->access(address, false);
  if (in_l2.hit) {
    return {hit_ready(l2_, in_l2.frame, later(cycle + l2_.hit_latency, link_done)),
            MemoryLevel::kL2};
  }
  MemoryAccessResult result;
  const CacheAccessResult in_slc = slc_.cache->access(address, false);
  if (in_slc.hit) {
    result = {hit_ready(slc_, in_slc.frame, later(cycle + slc_.hit_latency, link_done)),
              MemoryLevel::kSlc};
  } else {
    result = {later(dram_.request(cycle, line_bytes_), link_done), MemoryLevel::kDram};
    slc_.fill_ready[static_cast<std::size_t>(in_slc.frame)] = result.ready;
  }
  l2_.fill_ready[static_cast<std::size_t>(in_l2.frame)] = result.ready;
  // Writebacks go after the demand request: the SLC's victim first, then L2's.
  if (in_slc.writeback) {
    write_back_from_slc(cycle);
  }
  if (in_l2.writeback) {
    write_back_from_l2(cycle, in_l2.writeback_address);
  }
  return result;
}

void MemoryHierarchy::write_back_from_l2(Cycles cycle, std::uint64_t address) {
  const CacheAccessResult in_slc = slc_.cache->access(address, true);
  if (!in_slc.hit) {
    slc_.fill_ready[static_cast<std::size_t>(in_slc.frame)] = cycle;
  }
  if (in_slc.writeback) {
    write_back_from_slc(cycle);
  }
}

void MemoryHierarchy::write_back_from_slc(Cycles cycle) {
  stats_.increment(dram_writebacks_);
  dram_.request(cycle, line_bytes_);
}

void MemoryHierarchy::count_buffer_load(std::uint64_t address, MemoryLevel served_by) {
  const std::uint64_t buffer = address >> kBufferAddressShift;
  if (buffer >= kCountedBuffers) return;
  BufferCounters& b = buffers_[buffer];
  if (!b.registered) {
    const std::string name = std::to_string(buffer);
    for (const MemoryLevel level :
         {MemoryLevel::kL1, MemoryLevel::kL2, MemoryLevel::kSlc, MemoryLevel::kDram}) {
      b.served[static_cast<std::size_t>(level)] = buffer_stats_.add_counter(
          name + ".served_" + std::string(to_string(level)), "line requests",
          "loads of buffer " + name + " whose data came from " + std::string(to_string(level)));
    }
    b.dram_sequential = buffer_stats_.add_counter(
        name + ".dram_sequential", "line requests",
        "DRAM-served loads of buffer " + name +
            " whose line directly follows the previous DRAM-served line of that buffer");
    b.registered = true;
  }
  buffer_stats_.increment(b.served[static_cast<std::size_t>(served_by)]);
  if (served_by != MemoryLevel::kDram) return;
  const std::uint64_t line = address / static_cast<std::uint64_t>(line_bytes_);
  if (b.any_dram && line == b.last_dram_line + 1) buffer_stats_.increment(b.dram_sequential);
  b.last_dram_line = line;
  b.any_dram = true;
}

void MemoryHierarchy::append_records(std::string_view prefix, std::vector<StatRecord>& out) const {
  const std::string p(prefix);
  stats_.append_records(p, out);
  buffer_stats_.append_records(p + "buffer", out);
  StatRegistry l1_total = l1_.front().cache->stats();
  StatRegistry link_total = links_.front().stats();
  for (std::size_t core = 1; core < l1_.size(); ++core) {
    l1_total.accumulate(l1_[core].cache->stats());
    link_total.accumulate(links_[core].stats());
  }
  l1_total.append_records(p + "l1.", out);
  l2_.cache->stats().append_records(p + "l2.", out);
  slc_.cache->stats().append_records(p + "slc.", out);
  link_total.append_records(p + "core_link.", out);
  if (!l1_ports_.empty()) {
    StatRegistry port_total = l1_ports_.front().stats();
    for (std::size_t core = 1; core < l1_ports_.size(); ++core) {
      port_total.accumulate(l1_ports_[core].stats());
    }
    port_total.append_records(p + "l1_port.", out);
  }
  if (!l2_port_.empty()) l2_port_.front().stats().append_records(p + "l2_port.", out);
  dram_.stats().append_records(p + "dram.", out);
}

}  // namespace marlin::timing
