// Inputs and results of a timing run: one or more dependent launches replayed back to back on
// the simulated device (see gpu_timing_model.h).
//
// Contract: plain structs, nothing printed. Times are core cycles (Cycles) of the device clock
// and seconds derived from them with to_seconds(). Every field is defined in
// docs/timing-model.md ("Results").
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/device/device_spec.h"
#include "model/timing/cycles.h"
#include "model/timing/partition_balance.h"
#include "model/timing/reuse_distance.h"
#include "model/timing/stall_class.h"
#include "model/timing/stats.h"
#include "sim/runtime/trace.h"

namespace marlin::timing {

class TraceStream;

// One launch of a sequence. Launch i + 1 starts when every threadgroup of launch i has ended.
struct LaunchInput {
  const sim::LaunchTrace* trace = nullptr;  // not owned; must outlive the run
  // Instead of `trace`: the traces arrive threadgroup by threadgroup while the engine runs the
  // launch (trace_stream.h); the replay holds only those of resident threadgroups.
  TraceStream* stream = nullptr;
  // Threadgroups resident per core, from the family's occupancy rule (analytic/occupancy.h).
  int resident_threadgroups_per_core = 1;
  double useful_flops = 0;          // FLOPs the caller counts as useful work, for FLOP/s
  bool new_command_buffer = false;  // also pay dispatch.command_buffer_overhead_s
};

// How a scheduler picks among its ready simdgroups (the profile's gpu.issue_policy).
using IssuePolicy = model::IssuePolicy;

struct TimingOptions {
  // Overrides the profile's gpu.issue_policy when set.
  std::optional<IssuePolicy> issue_policy;
  // Window of the DRAM counter sent to an event sink (core cycles, at least 1).
  Cycles counter_window = Cycles(1000);
  // Replay speed only: issue the instructions of an ALU run in one step when no other
  // simdgroup of the scheduler can issue before them. The results are the same either way
  // (tests compare both).
  bool batch_alu_runs = true;
  // Record the reuse distances of the L2's accesses (TimingResult::l2_reuse), for sampling.
  bool l2_reuse_distances = false;
  // Host threads of the replay (at least 1). Once a launch's first threadgroups are
  // dispatched, its cores advance side by side on up to this many threads, in windows shorter
  // than the memory's shared latency (docs/timing-model.md, "Parallel replay"). The results
  // are the same at any count (tests compare them). Runs with an event sink use one.
  int replay_threads = 1;
  // Replay speed only: how the parallel replay shares the cores among its threads. It first
  // gives each thread a contiguous range of cores with about the same live simdgroups; with
  // kByTime, every `rebalance_windows` windows (0: never) each boundary between two ranges
  // moves by a core towards the range whose thread spent less time in its windows
  // (partition_balance.h). The results are the same for any split (tests move the boundaries
  // at every look: kSweep).
  PartitionBalance partition_balance = PartitionBalance::kByTime;
  int rebalance_windows = 256;
  // When set, the cores go side by side only once it reads true: a streamed run sets it when
  // its engine's workers are done, so that the replay beside them keeps to one thread and
  // leaves the other cores to them. The results do not depend on when it turns true.
  const std::atomic<bool>* parallel_gate = nullptr;
  // Replay speed only: every 32 windows each thread of a parallel replay measures the share
  // of a host core it ran on; below this share for any of them (a host busy with other work),
  // the windows, which wait for every thread, would wait for the host's scheduler: the replay
  // goes on serially, and tries its threads again later, each time after twice as many
  // serial steps (docs/timing-model.md, "Parallel replay"). 0: never. The results are the
  // same either way.
  double min_host_share = 0.6;
  // Tests only: instead of measuring the host, alternate parallel parts of this many windows
  // with serial parts of this many steps (0: off). The results are the same.
  int alternate_parallel = 0;
  // When set, incremented (relaxed) as each threadgroup ends in the replay, on whichever host
  // thread ends it. For a progress display; the results do not depend on it.
  std::atomic<std::uint64_t>* threadgroups_ended = nullptr;
};

// Per-launch results.
struct LaunchResult {
  std::string kernel;
  Cycles begin;     // first cycle of the launch (overhead included)
  Cycles cycles;    // end - begin: overhead + execution
  Cycles overhead;  // dispatch (+ command buffer) overhead at the start
  std::int64_t threadgroups = 0;
  int simdgroups_per_threadgroup = 0;
  int resident_threadgroups_per_core = 0;
  std::int64_t instructions = 0;  // simdgroup instructions issued (an ALU run of n counts n)
  std::int64_t dram_bytes = 0;    // bytes moved by the DRAM channel during the launch
  // Waves: a threadgroup's wave is 1 + the number of threadgroups that held its (core, slot)
  // before it in this launch; waves = the largest wave.
  int waves = 0;
  std::int64_t last_wave_threadgroups = 0;  // threadgroups whose wave is `waves`
  // Tail: from the first cycle a threadgroup slot fell empty with no threadgroup left to
  // dispatch, to the end of the launch (0 if that never happened before the end).
  Cycles tail_cycles;
  // Average resident simdgroups per core over the execution (cycles - overhead).
  double achieved_simdgroups_per_core = 0;
  std::int64_t slot_cycles = 0;  // cores * slots per core * cycles
  StallBreakdown breakdown;      // sums to slot_cycles
  friend bool operator==(const LaunchResult&, const LaunchResult&) = default;
};

// Fractions of peak in [0, 1] over the whole run (all launches, overhead included).
struct UnitUtilization {
  double alu = 0;                 // ALU + SIMD-collective instructions / scheduler issue slots
  double matrix = 0;              // FP-pipe cycles held by matrix multiplies / scheduler cycles
  double threadgroup_memory = 0;  // threadgroup-memory pipe busy cycles / core cycles
  double l1 = 0;                  // L1 transfer time / core cycles, averaged over cores
  double core_link = 0;           // L1<->L2 link transfer time / core cycles
  double l2 = 0;                  // shared L2 transfer time / cycles
  double dram = 0;                // DRAM channel transfer time / cycles
  friend bool operator==(const UnitUtilization&, const UnitUtilization&) = default;
};

struct HitRates {
  double l1 = 0;  // read hits / reads; 0 when there were no reads at that level
  double l2 = 0;
  double slc = 0;
  friend bool operator==(const HitRates&, const HitRates&) = default;
};

struct TimingResult {
  Cycles total_cycles;  // sum of the launches' cycles
  double seconds = 0;   // to_seconds(total_cycles)
  std::vector<LaunchResult> launches;
  double achieved_flops_per_s = 0;          // sum of useful_flops / seconds
  double dram_bytes_per_s = 0;              // DRAM bytes / seconds
  double achieved_simdgroups_per_core = 0;  // execution-time weighted over the launches
  StallBreakdown breakdown;                 // sum of the launches' breakdowns
  std::int64_t instructions = 0;
  UnitUtilization utilization;
  HitRates hit_rates;
  std::vector<StatRecord> stats;  // "core.", "threadgroup_memory.", "coalescer.", "memory."
  ReuseDistances l2_reuse;        // with TimingOptions::l2_reuse_distances, else empty
  // Replay bookkeeping, not a result (left out of ==): windows the replay ran in parallel,
  // cores it moved from one thread's range to another's (TimingOptions::partition_balance),
  // and times it stopped the windows for serial steps (TimingOptions::min_host_share).
  std::int64_t parallel_windows = 0;
  std::int64_t partition_moves = 0;
  std::int64_t parallel_stops = 0;
  friend bool operator==(const TimingResult& a, const TimingResult& b) {
    return a.total_cycles == b.total_cycles && a.seconds == b.seconds && a.launches == b.launches &&
           a.achieved_flops_per_s == b.achieved_flops_per_s &&
           a.dram_bytes_per_s == b.dram_bytes_per_s &&
           a.achieved_simdgroups_per_core == b.achieved_simdgroups_per_core &&
           a.breakdown == b.breakdown && a.instructions == b.instructions &&
           a.utilization == b.utilization && a.hit_rates == b.hit_rates && stats_equal(a, b);
  }

 private:
  static bool stats_equal(const TimingResult& a, const TimingResult& b) {
    if (a.stats.size() != b.stats.size()) return false;
    for (std::size_t i = 0; i < a.stats.size(); ++i) {
      if (a.stats[i].name != b.stats[i].name || a.stats[i].value != b.stats[i].value) {
        return false;
      }
    }
    return true;
  }
};

}  // namespace marlin::timing
