// MemoryHierarchy: per-core L1 caches, a shared L2, the shared system-level cache (SLC) and
// DRAM, composed behind one call that says when a line request's data is ready and which
// level served it.
//
// Model (see docs/timing-model.md, "Memory hierarchy"):
// - Hit latencies are load-to-use latencies from issue at the core: a load served by level X
//   is ready at issue + X.hit_latency_cycles; one served by DRAM at the DRAM channel's
//   completion (queueing + transfer + dram_latency_cycles).
// - Every request that leaves the L1 (L1 misses and all stores) crosses the core's link to
//   L2 (core_to_l2_bytes_per_cycle, a BandwidthChannel with no latency of its own); the data
//   is ready no earlier than the link has moved the line.
// - Ports: every load passes its core's L1 port (memory.l1_bytes_per_cycle, per core) and every
//   request that reaches L2 (L1 load misses and all stores) passes the shared L2 port
//   (memory.l2_bytes_per_cycle); both are BandwidthChannels without latency, charged at the
//   issue cycle like the link, and the data is ready no earlier than they have moved the line.
//   A rate of 0 means the port is not modelled (no limit, no counters).
// - Each cache frame remembers when its line's fill completes; a hit on a line still in flight
//   is ready no earlier than that (a merge with the outstanding miss).
// - L1: write-through, no write-allocate. L2 and SLC: write-back, write-allocate without fetch.
//   A store is served by L2. Dirty lines evicted from L2 are written into the SLC, dirty lines
//   evicted from the SLC go to DRAM (they use DRAM bandwidth; nobody waits for them).
// - Lines are allocated in every level at the time of the call. Calls must come in
//   non-decreasing cycle order for the bandwidth queues to be meaningful; the result is
//   deterministic for a given sequence of calls.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/common/zero_page_allocator.h"
#include "model/device/device_spec.h"
#include "model/timing/bandwidth_channel.h"
#include "model/timing/cache.h"
#include "model/timing/cycles.h"
#include "model/timing/stats.h"

namespace marlin::timing {

enum class MemoryLevel { kL1, kL2, kSlc, kDram };

// Device addresses carry the trace's [[buffer(n)]] index in bits kBufferAddressShift and up:
// the replay gives each buffer its own 2^40-byte range, so buffers never share a line.
inline constexpr int kBufferAddressShift = 40;
// Buffers below this index get per-buffer load counters ("memory.buffer<n>.*").
inline constexpr std::uint64_t kCountedBuffers = 16;

// Lower-case name of a level ("l1", "l2", "slc", "dram").
std::string_view to_string(MemoryLevel level);

struct MemoryAccessResult {
  Cycles ready;  // cycle at which the data is available to the core (or the store done)
  MemoryLevel served_by = MemoryLevel::kL1;
};

// One line request of a deferred access (MemoryHierarchy::access_deferred): the part of
// access() that only its core's L1, L1 port and link see is done at once, the shared part
// (the L2 port, L2, SLC, DRAM and the hierarchy's counters) by resolve_deferred().
struct DeferredAccess {
  enum class Kind : std::uint8_t {
    kL1Hit,      // ready is known; resolution only counts it (a buffer's first counted load)
    kL1HitFill,  // an L1 hit on a line a deferred miss (`fill`) is still filling
    kL1Miss,
    kStore,
  };
  Cycles cycle;
  std::uint32_t pass = 0;  // the replay's visit of the cores within `cycle` (see resolve)
  int core = 0;
  Kind kind = Kind::kL1Hit;
  std::uint64_t address = 0;
  // kL1Hit, kL1HitFill: the hit's ready cycle without a fill in flight. kL1Miss, kStore: the
  // cycle the core's L1 port (loads) and link have moved the line.
  Cycles front;
  Cycles ready;             // the data's ready cycle: known for kL1Hit, else set on resolution
  std::int64_t frame = -1;  // kL1Miss: the L1 frame the line fills
  std::int32_t fill = -1;   // kL1HitFill: index in the same log of the miss filling the line
};
using DeferredLog = std::vector<DeferredAccess>;

// The L1 hits a thread's deferred accesses counted themselves (access_deferred): the
// hierarchy's counters take them in add_settled_hits(). Counters are sums, so when they are
// added does not change them.
struct SettledHits {
  std::int64_t loads = 0;
  std::int64_t inflight_merges = 0;  // hits whose line was still filling
  std::array<std::int64_t, kCountedBuffers> by_buffer{};
};

class MemoryHierarchy {
 public:
  // Uses memory's caches, link rate and DRAM figures, gpu.cores L1s and gpu.clock_hz to turn
  // DRAM bytes per second into bytes per core cycle. The three caches must share a line size.
  // Throws InputError on an inconsistent spec.
  MemoryHierarchy(const model::MemorySpec& memory, const model::GpuSpec& gpu);

  // One line request from `core` issued at `cycle`; `address` is any byte of the line.
  MemoryAccessResult access(int core, Cycles cycle, std::uint64_t address, bool is_write);

  // Deferred accesses, for a replay whose cores advance side by side (launch_replay.h). Does
  // the per-core part of access() at once and appends the request to `log`; returns the ready
  // cycle when it is known now (an L1 hit on a line with no deferred fill in flight), else
  // nothing. Such a hit is counted in `hits` instead of logged, unless it is the first load
  // of a counted buffer whose counters are not registered yet (the log keeps their
  // registration in the serial order). Touches only `core`'s L1, L1 port and link: threads
  // may call it at once for different cores, each with its own log and hits. A deferred
  // result is never earlier than cycle + shared_latency().
  std::optional<Cycles> access_deferred(int core, Cycles cycle, std::uint32_t pass,
                                        std::uint64_t address, bool is_write, DeferredLog& log,
                                        SettledHits& hits);
  // Adds the hits access_deferred() counted to the hierarchy's counters and clears them. Not
  // while another thread calls access_deferred() with them.
  void add_settled_hits(SettledHits& hits);
  // Does the shared part of every logged request and sets its `ready`, in the order a serial
  // replay calls access(): by cycle, then pass, then log (logs[i] holds the requests of lower
  // cores than logs[i + 1]), then place in the log. Results, caches and counters then equal
  // those of access() called in that order. Clears nothing: the caller empties the logs.
  void resolve_deferred(std::span<DeferredLog* const> logs);
  // The least time from a request that leaves the L1 to its data: no deferred access is ready
  // sooner after its cycle.
  [[nodiscard]] Cycles shared_latency() const;

  [[nodiscard]] int line_bytes() const { return line_bytes_; }
  [[nodiscard]] int cores() const { return static_cast<int>(l1_.size()); }
  [[nodiscard]] const Cache& l1(int core) const {
    return *l1_[static_cast<std::size_t>(core)].cache;
  }
  [[nodiscard]] const Cache& l2() const { return *l2_.cache; }
  [[nodiscard]] const Cache& slc() const { return *slc_.cache; }
  [[nodiscard]] const BandwidthChannel& dram() const { return dram_; }
  // The DRAM channel, for observers that record its transfers (DramCounter).
  [[nodiscard]] BandwidthChannel& dram_channel() { return dram_; }
  [[nodiscard]] const BandwidthChannel& link(int core) const {
    return links_[static_cast<std::size_t>(core)];
  }
  [[nodiscard]] const StatRegistry& stats() const { return stats_; }
  // From now on appends the line number (address / line_bytes) of every L2 access, loads
  // and stores, to `lines` (nullptr stops); `lines` must outlive the recording.
  void record_l2_lines(std::vector<std::uint64_t>* lines) { l2_lines_ = lines; }
  // Fraction of [0, elapsed) the core's L1 port transferred (0 when not modelled).
  [[nodiscard]] double l1_port_utilization(int core, Cycles elapsed) const;
  // Fraction of [0, elapsed) the shared L2 port transferred (0 when not modelled).
  [[nodiscard]] double l2_port_utilization(Cycles elapsed) const;

  // All counters for writers: "<prefix>" own counters, then l1 (summed over cores), l2, slc,
  // core_link (summed over cores), l1_port (summed over cores) and l2_port when modelled, and
  // dram, e.g. "memory.l2.read_hits".
  void append_records(std::string_view prefix, std::vector<StatRecord>& out) const;

 private:
  // A cache plus, per frame, the cycle at which the frame's line is filled (written when a
  // line takes the frame, so its pages are mapped only for the frames a replay uses).
  struct Level {
    std::unique_ptr<Cache> cache;
    std::vector<Cycles, ZeroPageAllocator<Cycles>> fill_ready;
    Cycles hit_latency;
  };

  static Level make_level(const model::CacheSpec& spec, WritePolicy policy,
                          const std::string& name);
  // Completion of a line's transfer through the L2 port issued at `cycle` (`cycle` if none).
  Cycles through_l2_port(Cycles cycle);
  // A store's part below the L1 (it reaches L2 once `link_done`); returns its ready cycle.
  Cycles store_below_l1(Cycles cycle, std::uint64_t address, Cycles link_done);
  // The shared part of one deferred request of `log`.
  void resolve_one(DeferredLog& log, DeferredAccess& a);
  // Read of a line that missed L1: L2, then SLC, then DRAM; returns ready cycle and level.
  MemoryAccessResult read_below_l1(Cycles cycle, std::uint64_t address, Cycles link_done);
  // Ready cycle of a hit in `level` at `frame`: no earlier than `earliest` nor the frame's fill.
  Cycles hit_ready(const Level& level, std::int64_t frame, Cycles earliest);
  // Writes a dirty line evicted from L2 into the SLC (and onward to DRAM if needed).
  void write_back_from_l2(Cycles cycle, std::uint64_t address);
  // Sends a dirty line evicted from the SLC to DRAM (bandwidth only).
  void write_back_from_slc(Cycles cycle);
  // Per-buffer load counters: the level that served the load, and whether a DRAM-served line
  // directly follows the previous DRAM-served line of the same buffer. Registered on the
  // buffer's first load, so only buffers that were read appear.
  void count_buffer_load(std::uint64_t address, MemoryLevel served_by);

  struct BufferCounters {
    bool registered = false;
    std::array<StatId, 4> served{};  // by MemoryLevel
    StatId dram_sequential;
    std::uint64_t last_dram_line = 0;
    bool any_dram = false;
  };

  int line_bytes_;
  std::vector<Level> l1_;  // one per core
  Level l2_;
  Level slc_;
  std::vector<BandwidthChannel> links_;
  std::vector<BandwidthChannel> l1_ports_;  // one per core; empty when not modelled
  std::vector<BandwidthChannel> l2_port_;   // one, or empty when not modelled
  BandwidthChannel dram_;
  StatRegistry stats_;
  StatId loads_;
  StatId stores_;
  std::array<StatId, 4> served_{};  // by MemoryLevel
  StatId inflight_merges_;
  StatId dram_writebacks_;
  StatRegistry buffer_stats_;
  std::array<BufferCounters, kCountedBuffers> buffers_{};
  std::vector<std::uint64_t>* l2_lines_ = nullptr;  // record_l2_lines
  // Per core and L1 frame: the index in the core's log of the deferred miss filling it, or -1.
  std::vector<std::vector<std::int32_t>> l1_filling_;
};

}  // namespace marlin::timing
