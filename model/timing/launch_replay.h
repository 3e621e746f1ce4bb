// LaunchReplay: replays one launch's per-simdgroup traces on the simulated device: the
// dispatcher places threadgroups on cores, each core's schedulers issue the simdgroups'
// instructions through the pipes, threadgroup memory, barriers and the memory hierarchy.
//
// Model (docs/timing-model.md, "Dispatcher", "Core and schedulers", "Stall classes"):
// - Threadgroups are dispatched in linear order (x fastest) to the core with the most free
//   threadgroup slots (ties: lowest core index), lowest free slot first, in the cycle a slot
//   frees up. Simdgroup slot l of a core is bound to scheduler l mod schedulers_per_core.
// - A scheduler issues at most one instruction per cycle, from the ready simdgroup chosen by the
//   issue policy. The core's threadgroup-memory pipe, when free, is granted round robin among
//   the schedulers whose choice is a threadgroup-memory op. An op is ready when the previous op of
//   its simdgroup issued in an earlier cycle, its `dep` op has completed, and its pipe accepts it.
// - Time advances event to event: a scheduler with no ready simdgroup sleeps until the earliest
//   cycle one can be ready, so fully stalled spans cost no work. Nothing is allocated in the loop.
// Deterministic: cores, schedulers and events are visited in a fixed order.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <queue>
#include <span>
#include <unordered_map>
#include <vector>

#include "model/device/device_spec.h"
#include "model/timing/coalescer.h"
#include "model/timing/core_counters.h"
#include "model/timing/dram_counter.h"
#include "model/timing/memory_hierarchy.h"
#include "model/timing/op_costs.h"
#include "model/timing/packed_trace.h"
#include "model/timing/padded_array.h"
#include "model/timing/partition_balance.h"
#include "model/timing/progress_watchdog.h"
#include "model/timing/threadgroup_memory_banks.h"
#include "model/timing/timing_event_sink.h"
#include "model/timing/timing_run.h"
#include "model/timing/trace_stream.h"

namespace marlin::timing {

// The device state shared by the launches of one run (caches stay warm between launches).
struct ReplayDevice {
  model::GpuSpec gpu;
  model::ThreadgroupMemorySpec threadgroup_memory;
  const OpCosts* costs = nullptr;
  MemoryHierarchy* memory = nullptr;
  Coalescer* coalescer = nullptr;
  std::vector<std::unique_ptr<ThreadgroupMemoryBanks>>* banks = nullptr;  // one per core
  CoreCounters* counters = nullptr;
  IssuePolicy policy = IssuePolicy::kOldestFirst;
  TimingEventSink* sink = nullptr;                       // optional
  DramCounter* dram_counter = nullptr;                   // with a sink: the windowed DRAM counter
  bool batch_alu_runs = true;                            // TimingOptions::batch_alu_runs
  int threads = 1;                                       // TimingOptions::replay_threads
  PartitionBalance balance = PartitionBalance::kByTime;  // TimingOptions::partition_balance
  int rebalance_windows = 256;                           // TimingOptions::rebalance_windows
  const std::atomic<bool>* parallel_gate = nullptr;      // TimingOptions::parallel_gate
  double min_host_share = 0.6;                           // TimingOptions::min_host_share
  int alternate_parallel = 0;                            // TimingOptions::alternate_parallel
  std::atomic<std::uint64_t>* threadgroups_ended = nullptr;  // TimingOptions::threadgroups_ended
};

class LaunchReplay {
 public:
  // Validates the launch (InputError naming the kernel and the bad field) and prepares the
  // per-launch state. `begin` is the launch's first cycle; threadgroups start at
  // begin + overhead. A streamed launch (LaunchInput::stream) waits here for its header; its
  // threadgroups' traces are taken and checked as they are dispatched, and dropped when they
  // end. Both ways give the same results.
  LaunchReplay(const ReplayDevice& device, const LaunchInput& input, int launch_index, Cycles begin,
               Cycles overhead);

  LaunchResult run();
  // Windows run() advanced the cores in parallel (TimingOptions::replay_threads).
  [[nodiscard]] std::int64_t parallel_windows() const { return parallel_windows_; }
  // Cores the parallel windows moved between threads (TimingOptions::partition_balance).
  [[nodiscard]] std::int64_t partition_moves() const { return partition_moves_; }
  // Times the parallel windows stopped before the launch's end for serial steps.
  [[nodiscard]] std::int64_t parallel_stops() const { return parallel_stops_; }

 private:
  static constexpr int kFirstTgPipe = static_cast<int>(Pipe::kThreadgroupMemory);
  static constexpr std::size_t kPipeEntries = static_cast<std::size_t>(Pipe::kNone) + 1;

  // A live simdgroup in its scheduler's age list, with copies of the fields the scans of
  // that list read (select, the grant, issuing ahead), so that a scan reads one contiguous
  // array. sync_live() copies them after every change of ready_at, pipe or blocked.
  struct LiveEntry {
    Cycles ready_at;
    int local = -1;
    Pipe pipe = Pipe::kNone;
    bool blocked = false;
  };

  struct SimdgroupSlot {
    // Op i of the trace is ops[i & ops_mask]; an op's accesses are stored from
    // accesses[op.first_access]. A packed trace (streamed launches) is unpacked by `reader` into
    // its window as pc advances (prepare_next); a plain trace is read in place.
    const sim::TraceOp* ops = nullptr;
    std::uint32_t ops_mask = ~std::uint32_t{0};
    const sim::MemAccess* accesses = nullptr;
    PackedTraceReader* reader = nullptr;
    std::uint32_t unpacked = 0;  // ops readable from the start (op_count for a plain trace)
    // Each access is read moved by its buffer's shift (a translated threadgroup reading its
    // base's trace in place; none otherwise).
    std::span<const sim::BufferShift> shifts{};
    // Completion cycle of op i at done[i & done_mask]: the newest ops (a ring of the slot) or
    // every op of the trace.
    Cycles* done = nullptr;
    std::uint32_t done_mask = 0;
    std::uint32_t op_count = 0;
    std::uint32_t pc = 0;
    std::uint32_t run_left = 0;  // ALU instructions of ops[pc] still to issue (0: not started)
    Cycles segment_start;        // first issue of the ALU ops since the last non-ALU op
    bool live = false;           // resident and not finished issuing
    bool blocked = false;        // arrived at a threadgroup barrier, not released
    Pipe pipe = Pipe::kNone;     // pipe of ops[pc]
    std::uint64_t age = 0;       // dispatch order, for the issue policy
    Cycles ready_at;             // ops[pc] may issue from here (order and dependency; pipes aside)
    Cycles wait_from;            // start of the not yet classified interval
    Cycles barrier_until;        // the interval's barrier part ends here
    Cycles dep_ready;            // the interval's dependency part ends here
    StallClass dep_class = StallClass::kAluBusy;
    Cycles barrier_issue;  // cycle the pending threadgroup barrier issued
    Cycles last_done;      // latest completion of the ops issued so far
    StallClass last_done_class = StallClass::kAluBusy;
    Cycles end;  // when it finished (issued everything and all results completed)
    // Open state interval for the event sink (merged while the class repeats).
    StallClass open_state = StallClass::kIdle;
    Cycles open_begin;
    Cycles open_end;
    // Parallel windows: ready_at before its dependency, and the ops whose completion waits
    // for the window's end (their done entries hold the window's end until then).
    Cycles order_ready;
    std::uint32_t pending_ops = 0;
    // While live: its entry in its scheduler's age list (LiveEntry).
    LiveEntry* listed = nullptr;
  };

  struct ThreadgroupSlot {
    bool busy = false;
    std::uint32_t threadgroup = 0;
    Cycles begin;
    Cycles end;
    Cycles empty_since;
    int live = 0;     // simdgroups still issuing
    int arrived = 0;  // simdgroups waiting at the current barrier
    Cycles last_arrival;
    int held = 0;       // threadgroups this slot held in this launch (its wave count)
    int unsettled = 0;  // finished simdgroups whose end waits for the window's end
  };

  struct Scheduler {
    Cycles wake;            // try to issue no earlier than this
    Cycles last_issue{-1};  // cycle of the last issue
    int last_issued = -1;   // simdgroup slot that issued last (greedy policy)
    // Per pipe (Pipe): free from this cycle. The scheduler's own pipes are set as they issue;
    // the threadgroup-memory entry, the core's shared pipe, is set in every scheduler of the
    // core at once (threadgroup_memory()); kNone's stays 0. So eligible() reads one entry
    // whatever the pipe.
    std::array<Cycles, kPipeEntries> pipe_free{};
    std::array<Cycles, kSchedulerPipeCount> pipe_last_issue{};
    std::array<StallClass, kSchedulerPipeCount> pipe_holder{};
  };

  struct EndEvent {
    Cycles at;
    int core = 0;
    int slot = 0;
    friend bool operator>(const EndEvent& a, const EndEvent& b) {
      if (a.at != b.at) return a.at > b.at;
      if (a.core != b.core) return a.core > b.core;
      return a.slot > b.slot;
    }
  };

  // Parallel windows (launch_replay_parallel.cpp). An op whose memory requests wait for
  // the window's end, its known part, and its requests in the partition's log.
  struct PendingOp {
    int core = 0;
    int local = 0;
    std::uint32_t op = 0;
    Cycles done;
    std::uint32_t first_request = 0;
    std::uint32_t end_request = 0;
  };
  // A completion that updates last_done, in issue order, once a simdgroup has pending ops:
  // `pending` >= 0 names the PendingOp whose completion it is.
  struct DoneUpdate {
    int core = 0;
    int local = 0;
    std::int32_t pending = -1;
    Cycles done;
    StallClass wait_class = StallClass::kAluBusy;
  };
  // A simdgroup that finished issuing with pending ops: its end waits for their completion.
  struct PendingFinish {
    int core = 0;
    int local = 0;
    Cycles order_ready;
  };
  // What one replay thread owns: a range of cores and the state their steps write. A serial
  // replay has one partition of every core; a parallel one, one per thread.
  struct alignas(64) Partition {
    int first_core = 0;
    int end_core = 0;
    CoreCounters* counters = nullptr;  // the device's, or own_counters
    Coalescer* coalescer = nullptr;    // the device's, or own_coalescer
    std::unique_ptr<CoreCounters> own_counters;
    std::unique_ptr<Coalescer> own_coalescer;
    std::vector<LaneAccess> lanes;  // scratch for one chunk of an op's accesses
    StallBreakdown breakdown;
    std::priority_queue<EndEvent, std::vector<EndEvent>, std::greater<>> ends;
    Cycles woken;  // earliest wake set during the current step
    Cycles last_end;
    std::int64_t resident_sg_cycles = 0;
    int ended = 0;  // threadgroups ended
    // Parallel windows.
    bool deferring = false;  // memory requests below the L1 wait for the window's end
    Cycles window_end;       // also the bound of issuing ahead (kNever when serial)
    Cycles next;             // the partition's next step
    Cycles last_step{-1};
    std::uint32_t pass = 0;  // visits of the cores at the cycle last_step
    Cycles tail_from;        // cycle of the first threadgroup end of the parallel part
    ProgressWatchdog watchdog;
    std::chrono::steady_clock::duration busy{};  // in its windows since the last rebalance()
    // Its thread's share of a host core since the last look (host_share.h; leave_parallel).
    double host_share = 1;
    DeferredLog log;
    SettledHits settled;  // the L1 hits of the window's requests, counted apart from the log
    std::vector<PendingOp> pending;
    std::vector<DoneUpdate> done_updates;
    std::vector<PendingFinish> finishes;
  };
  Partition& part(int core) { return *part_of_[static_cast<std::size_t>(core)]; }
  [[nodiscard]] const Partition& part(int core) const {
    return *part_of_[static_cast<std::size_t>(core)];
  }

  // Ends the threadgroups of `p` due by t.
  void end_threadgroups(Partition& p, Cycles t);
  // One visit at t of the cores of `p` whose wake has come; returns the partition's next step
  // (ends and wakes; kNever if none).
  Cycles step_cores(Partition& p, Cycles t);
  // Whether the rest of the launch may run in parallel windows, and that run.
  [[nodiscard]] bool parallel_ready() const;
  // Runs the cores in parallel windows from t until the launch ends (returns kNever) or the
  // host gives its threads too little of its cores (ReplayDevice::min_host_share; returns the
  // cycle the serial replay goes on from, with one partition again).
  Cycles run_parallel(Cycles t);
  // Whether the threads of the round just run should stop: each measured its share of a host
  // core since the last look (Partition::host_share), or alternate_parallel says so.
  [[nodiscard]] bool leave_parallel(std::int64_t round) const;
  void split_partitions(int count);
  // Between rounds: moves cores between neighbouring partitions as device_.balance says,
  // and notes each partition's next step in next_steps.
  void rebalance(std::vector<Cycles>& next_steps);
  // Gives `core`, the first or last of `from`, to its neighbour `to`, with its ends.
  void move_core(int core, Partition& from, Partition& to);
  // Steps `p` through its window. `dispatching`: threadgroups were left to dispatch at the
  // round's start, so a threadgroup due ends the window (dispatch_round ends it).
  void run_window(Partition& p, bool dispatching);
  // Ends the threadgroups due at the earliest next step and dispatches into their slots, as
  // the serial replay's steps at that cycle do; notes each partition's next step; returns the
  // round's window end, which no threadgroup end comes before (next_end_bound).
  Cycles dispatch_round(std::vector<Cycles>& next_steps, Cycles window);
  // The earliest cycle at or after `begin` a threadgroup could end.
  [[nodiscard]] Cycles next_end_bound(Cycles begin) const;
  // The partition whose earliest end is due by t and first in the serial order (cycle, core,
  // slot); null if none is.
  Partition* first_due(Cycles t);
  // Lowers p.next to its cores' earliest wake and its earliest end.
  void pull_next_step(Partition& p) const;
  // The end of a window: one thread makes every partition's logged requests below the L1
  // (resolve_logs), then each partition's thread gives its pending ops their completions and
  // settles what waited for them (finish_window, which reads and writes only its cores).
  void resolve_logs();
  void finish_window(Partition& p);
  void merge_partitions();
  // Records a completion for last_done: at once, or in issue order once ops are pending.
  void note_done(int core, int local, Cycles done, StallClass wait_class, std::int32_t pending) {
    SimdgroupSlot& g = sg(core, local);
    if (g.pending_ops > 0) {
      defer_done(core, local, done, wait_class, pending);
    } else if (done > g.last_done) {
      g.last_done = done;
      g.last_done_class = wait_class;
    }
  }
  void defer_done(int core, int local, Cycles done, StallClass wait_class, std::int32_t pending);
  // Finishing a simdgroup: its timing (stall charges, end) and leaving the scheduler.
  void settle_simdgroup(int core, int local, Cycles end);
  void retire_simdgroup(int core, int local);
  // Queues the end of threadgroup slot `slot` once its simdgroups have all retired and settled.
  void end_when_settled(int core, int slot);

  // Setup.
  void index_traces();
  // Checks one simdgroup's trace (InputError naming it and the bad op) and returns how many
  // ops back its deps reach, plus one.
  std::size_t check_trace(const sim::SimdgroupTrace& sg) const;
  // Where one simdgroup of a threadgroup being dispatched finds its trace and completion
  // cycles (SimdgroupSlot's fields of the same names).
  struct TraceBinding {
    bool bound = false;
    const PackedTrace* packed = nullptr;         // or the plain trace's ops and accesses
    std::span<const sim::BufferShift> shifts{};  // to read the plain trace's accesses with
    const sim::TraceOp* ops = nullptr;
    const sim::MemAccess* accesses = nullptr;
    std::uint32_t op_count = 0;
    Cycles* done = nullptr;
    std::uint32_t done_mask = 0;
  };
  // Fills binding_ for threadgroup `index` dispatched to slot `slot` of `core` (a streamed
  // launch takes and checks its traces here).
  void bind_traces(int core, int slot, std::uint32_t index);
  void bind_streamed(int core, int slot, std::uint32_t index);
  // The ring of completion cycles of simdgroup slot `local` of `core`, for a trace whose deps
  // reach `reach` ops back (at most kMaxRecentOps): grown to at least bit_ceil(reach) entries,
  // of which `mask` (size - 1) selects that many. An op's dep is then never overwritten before
  // the op reads it, whatever an earlier threadgroup in the slot left in the ring.
  Cycles* ring_for(int core, int local, std::size_t reach, std::uint32_t& mask);
  // Dispatcher.
  void dispatch(Cycles t);
  void start_threadgroup(int core, int slot, Cycles t);
  void end_threadgroup(int core, int slot);
  // Schedulers.
  void try_issue(int core, int scheduler, Cycles t);
  // The first cycle an op on `pipe`, ready from `ready_at`, may issue on scheduler `s`: once
  // its pipe is free too (a scheduler pipe of `s`, or its core's threadgroup-memory pipe).
  // For a simdgroup, of its next op (ops[pc]).
  [[nodiscard]] static Cycles eligible(Cycles ready_at, Pipe pipe, const Scheduler& s) {
    return later(ready_at, s.pipe_free[static_cast<std::size_t>(pipe)]);
  }
  [[nodiscard]] static Cycles eligible(const SimdgroupSlot& g, const Scheduler& s) {
    return eligible(g.ready_at, g.pipe, s);
  }
  // The simdgroup scheduler k of `core` would issue at t (-1: none) under the issue policy;
  // when none is eligible, `earliest` receives the first cycle one of them may become so.
  // A threadgroup-memory op is eligible at t only when `tgm_granted`.
  int select(int core, int k, Cycles t, bool tgm_granted, Cycles& earliest);
  // Round-robin grant of the core's shared threadgroup-memory pipe at t: the first scheduler,
  // from tgm_next_, whose choice at t is a threadgroup-memory op; -1 if none.
  int grant_threadgroup_memory(int core, Cycles t);
  void issue(int core, int scheduler, int local, Cycles t);
  // issue() of the first instruction of an ALU op (ops[pc], run_left 0) of a simdgroup with
  // nothing to classify since its last issue (wait_from == t), the case of a simdgroup that
  // goes on from one ALU op to the next in consecutive cycles: the same effects, without the
  // wait's classification and the switch on the op's class. Returns the op's cost.
  const OpCost& issue_alu_start(int core, int scheduler, int local, Cycles t);
  // The ALU part of an issue at t of an instruction of `op` (ops[pc], an ALU op whose kind
  // costs `cost`), once the wait before it is classified and the issue counted: the pipe, the
  // ALU count and the run. Returns whether it was the run's last instruction, whose
  // completion of the op is the caller's.
  [[gnu::always_inline]] static bool issue_alu_instruction(SimdgroupSlot& g, Scheduler& s,
                                                           CoreCounters& counters,
                                                           const sim::TraceOp& op,
                                                           const OpCost& cost, Cycles t);
  // After op pc of `local` issued its last instruction at t: records its completion `done`
  // (`pending`: its PendingOp, or -1) and moves on to the next op, ready from `order_ready`.
  void complete_op(int core, int local, Cycles done, StallClass wait_class, std::int32_t pending,
                   Cycles t, Cycles order_ready);
  // Completion of an ALU op whose last instruction issues at t: its latency after t, and a
  // dependent chain of `chain` instructions no sooner than `chain` latencies after its ALU
  // segment (the ALU ops between two other ops) began to issue.
  static Cycles alu_done(const SimdgroupSlot& g, const sim::TraceOp& op, const OpCost& cost,
                         Cycles t) {
    return std::max(t + cost.latency,
                    g.segment_start + cost.latency * static_cast<std::int64_t>(op.chain));
  }
  // Issue ahead (launch_replay_runs.cpp). After scheduler k issued at t, issues at once the
  // compute instructions (ALU runs, SIMD collectives, matrix ops) it would issue next, of any
  // of its simdgroups, each at its cycle, as long as nothing outside the scheduler could change
  // its choices first. Stops before memory ops, barriers and a trace's last instruction (those
  // affect other simdgroups). Same results as one step per cycle.
  void issue_ahead(int core, int scheduler, Cycles t);
  // Issues the rest of the current ALU run, whose instructions cost `cost`, one per
  // throughput (at least 1) cycles after `t`, all before `horizon`, in O(1) when there is no
  // event sink. The run's last instruction completes the op, unless it is the trace's last
  // (the normal path ends the simdgroup). Returns whether it issued anything.
  bool batch_alu_run(int core, int scheduler, int local, Cycles t, const OpCost& cost,
                     Cycles horizon);
  // What may change scheduler k's choices from outside it while it issues only compute
  // instructions from `t` on: from `hard` on, any choice (a simdgroup released from a barrier,
  // a threadgroup-memory op that may win the core's grant, the parallel window's end); from
  // `gap` on, a choice in a cycle none of its simdgroups is eligible in (a younger simdgroup
  // a dispatch may bring).
  struct AheadBounds {
    Cycles hard;
    Cycles gap;
  };
  [[nodiscard]] AheadBounds ahead_bounds(int core, int scheduler, Cycles t) const;
  // The earliest cycle a simdgroup held at the barrier of threadgroup slot `slot` may become
  // eligible, given that nothing is released before t: an arrival at t or later releases it
  // `barrier` cycles later, and a finishing simdgroup (the other way a barrier releases)
  // issues its remaining ops one a cycle at most.
  [[nodiscard]] Cycles release_bound(int core, int slot, Cycles t, Cycles barrier) const;
  // The earliest cycle a live simdgroup that issues nothing before `from` could issue its last
  // op: its ops left, one a cycle.
  static Cycles last_issue_bound(const SimdgroupSlot& g, Cycles from) {
    return from + Cycles(static_cast<std::int64_t>(g.op_count) - g.pc - 1);
  }
  // Scheduler k's choice at the first cycle from `next` in which one of its simdgroups (held
  // at no barrier, no threadgroup-memory op next) is eligible, and the earliest cycle one of
  // the simdgroups older than it is.
  struct AheadChoice {
    int chosen = -1;
    Cycles at{std::numeric_limits<std::int64_t>::max() / 4};
    Cycles older{std::numeric_limits<std::int64_t>::max() / 4};
  };
  [[nodiscard]] AheadChoice choose_ahead(int core, int scheduler, Cycles next) const;
  // The earliest cycle a simdgroup of scheduler k other than `local` may be chosen in (those
  // held at a barrier and threadgroup-memory ops aside: AheadBounds::hard covers them).
  [[nodiscard]] Cycles others_eligible(int core, int scheduler, int local) const;
  // The pipe `op` issues to (kThreadgroupMemory for ops that access threadgroup memory).
  [[nodiscard]] Pipe pipe_of(const sim::TraceOp& op) const {
    return device_.costs->traits(op).pipe;
  }
  void prepare_next(int core, int local, Cycles order_ready);
  // The bodies of complete_op() and prepare_next(), inlined into issue() (only
  // launch_replay_issue.cpp calls them): the other callers go through the out-of-line ones.
  [[gnu::always_inline]] void complete_op_inline(int core, int local, Cycles done,
                                                 StallClass wait_class, std::int32_t pending,
                                                 Cycles t, Cycles order_ready);
  [[gnu::always_inline]] void prepare_next_inline(int core, int local, Cycles order_ready);
  // Unpacks the packed trace of `g` from its pc on (PackedTraceReader::fill). Out of line:
  // it runs once per PackedTraceReader::kAhead ops, and prepare_next() stays small.
  [[gnu::noinline]] static void unpack_more(SimdgroupSlot& g);
  void finish_simdgroup(int core, int local, Cycles end);
  void arrive_at_barrier(int core, int local, Cycles t);
  void check_release(int core, int tg_slot);
  void wake(int core, int local, Cycles at);
  // The live simdgroups of scheduler k of `core`, oldest first (SimdgroupSlot::age): the
  // slots select() and issue_ahead() visit. A simdgroup joins at dispatch (the youngest) and
  // leaves when it finishes.
  [[nodiscard]] int live_count_of(int core, int k) const {
    return live_count_[static_cast<std::size_t>(core * schedulers_ + k)];
  }
  [[nodiscard]] std::span<const LiveEntry> live_by_age(int core, int k) const {
    const std::size_t at = static_cast<std::size_t>(core * schedulers_ + k);
    return {live_by_age_.data() + at * static_cast<std::size_t>(live_capacity_),
            static_cast<std::size_t>(live_count_[at])};
  }
  // Copies ready_at, pipe and blocked of live simdgroup `g` into its LiveEntry.
  static void sync_live(SimdgroupSlot& g) {
    g.listed->ready_at = g.ready_at;
    g.listed->pipe = g.pipe;
    g.listed->blocked = g.blocked;
  }
  // eligible() of the simdgroup `e` lists, from the copies.
  [[nodiscard]] static Cycles eligible(const LiveEntry& e, const Scheduler& s) {
    return eligible(e.ready_at, e.pipe, s);
  }
  void add_live(int core, int local);
  void remove_live(int core, int local);
  // Whether `g` may take the threadgroup-memory grant: live, not held at a barrier, its next
  // op on the threadgroup-memory pipe. Each scheduler counts its simdgroups that may
  // (tgm_candidates_), so the grant skips schedulers without one; every change of live or
  // blocked is followed by recount_tgm() with the value before it, and prepare_next(), where
  // the simdgroup is live and unblocked, counts a change of pipe itself.
  static bool tgm_candidate(const SimdgroupSlot& g) {
    return g.live && !g.blocked && g.pipe == Pipe::kThreadgroupMemory;
  }
  void recount_tgm(int core, int local, bool was) {
    const bool now = tgm_candidate(sg(core, local));
    if (now != was) tgm_candidates_of(core, local) += now ? 1 : -1;
  }
  // The count of the scheduler that serves simdgroup slot `local`.
  int& tgm_candidates_of(int core, int local) {
    return tgm_candidates_[static_cast<std::size_t>(core * schedulers_ + local % schedulers_)];
  }
  // Each scheduler also counts its simdgroups held at a threadgroup barrier (all live: one
  // cannot finish while held), where arrive_at_barrier() and check_release() set `blocked`.
  int& held_at_barrier_of(int core, int local) {
    return held_at_barrier_[static_cast<std::size_t>(core * schedulers_ + local % schedulers_)];
  }
  // Simdgroup slots of a core that scheduler k serves.
  [[nodiscard]] int slots_of_scheduler(int k) const {
    return (slots_per_core_ - k + schedulers_ - 1) / schedulers_;
  }
  // Op timing.
  // Fills lanes[0, n) with accesses from .. from + n - 1 of the op whose accesses are stored
  // from `stored` (device addresses carry their buffer's range, memory_hierarchy.h) and
  // returns the mask of the lanes that access at least one byte.
  LaneMask gather_lanes(std::vector<LaneAccess>& lanes, const sim::MemAccess* stored,
                        std::uint32_t from, std::size_t n, bool device,
                        std::span<const sim::BufferShift> shifts);
  // Completion of a device-memory op; in a parallel window `deferred` is set when part of
  // it waits for the window's end (the result is then the known part). Both read each access
  // moved by its buffer's shift in `shifts` (SimdgroupSlot::shifts).
  Cycles device_memory(int core, const sim::TraceOp& op, const sim::MemAccess* accesses,
                       std::span<const sim::BufferShift> shifts, Cycles t, bool is_write,
                       bool& deferred);
  Cycles threadgroup_memory(int core, const sim::TraceOp& op, const sim::MemAccess* accesses,
                            std::span<const sim::BufferShift> shifts, Cycles t);
  // `packed` unpacked, once per launch: the plain trace translated threadgroups read in place.
  const sim::SimdgroupTrace& unpacked_base(const std::shared_ptr<const PackedTrace>& packed);
  // Accounting.
  // Splits [wait_from, t) of simdgroup `g` into barrier, dependency, pipe-busy and issue-wait
  // parts, each given to charge(stall, from, to) (which ignores empty ones). The pipe is busy in
  // (pipe_last_issue, pipe_free): the cycle of its last issue was another issue. Inlined into
  // issue(), its only caller, which charges the breakdown directly when there is no sink.
  template <class Charge>
  [[gnu::always_inline]] static void classify_wait(SimdgroupSlot& g, Cycles t,
                                                   Cycles pipe_last_issue, Cycles pipe_free,
                                                   StallClass holder, Charge charge);
  // Charges [from, to) of simdgroup `local` to `stall` (nothing if empty); with a sink, the
  // interval also extends the simdgroup's open state or opens a new one.
  void charge(int core, int local, StallClass stall, Cycles from, Cycles to) {
    if (to <= from) return;
    part(core).breakdown.add(stall, (to - from).count());
    if (device_.sink != nullptr) record_state(core, local, stall, from, to);
  }
  void record_state(int core, int local, StallClass stall, Cycles from, Cycles to);
  void flush_state(int core, int local);

  SimdgroupSlot& sg(int core, int local) {
    return sgs_[static_cast<std::size_t>(core * slots_per_core_ + local)];
  }
  [[nodiscard]] const SimdgroupSlot& sg(int core, int local) const {
    return sgs_[static_cast<std::size_t>(core * slots_per_core_ + local)];
  }
  [[nodiscard]] const Scheduler& scheduler(int core, int k) const {
    return scheds_[static_cast<std::size_t>(core * schedulers_ + k)];
  }
  // The cycle the threadgroup-memory pipe of `core` is free from (its schedulers agree).
  [[nodiscard]] Cycles tgm_free(int core) const {
    return scheduler(core, 0).pipe_free[static_cast<std::size_t>(Pipe::kThreadgroupMemory)];
  }
  ThreadgroupSlot& tg(int core, int slot) {
    return tgs_[static_cast<std::size_t>(core * resident_ + slot)];
  }
  [[nodiscard]] const ThreadgroupSlot& tg(int core, int slot) const {
    return tgs_[static_cast<std::size_t>(core * resident_ + slot)];
  }
  Scheduler& scheduler(int core, int k) {
    return scheds_[static_cast<std::size_t>(core * schedulers_ + k)];
  }

  // Grows with every issued instruction and every threadgroup dispatched or ended (of one
  // partition: its instructions and ends).
  std::int64_t progress() const {
    return device_.counters->registry.value(device_.counters->instructions) +
           2 * std::int64_t{next_threadgroup_} - active_threadgroups_ + parts_[0].ended;
  }
  static std::int64_t progress(const Partition& p) {
    return p.counters->registry.value(p.counters->instructions) + p.ended;
  }

  const ReplayDevice& device_;
  const sim::LaunchTrace* trace_;  // the whole launch's traces, or null when streamed
  TraceStream* stream_;            // or the stream they arrive on
  sim::LaunchHeader header_;
  LaunchResult result_;
  int launch_index_;
  Cycles begin_;
  Cycles exec_begin_;
  int cores_;
  int schedulers_;
  int resident_;
  int sgs_per_tg_;
  int slots_per_core_;
  std::uint32_t total_threadgroups_ = 0;
  std::uint32_t next_threadgroup_ = 0;
  int active_threadgroups_ = 0;
  std::uint64_t next_age_ = 0;
  Cycles tail_start_;
  std::vector<Partition> parts_;
  std::int64_t parallel_windows_ = 0;
  std::int64_t partition_moves_ = 0;
  std::int64_t parallel_stops_ = 0;
  // After the parallel part stopped early: serial steps before it may start again, and how
  // many the next stop waits (doubling up to a bound).
  std::int64_t serial_steps_left_ = 0;
  std::int64_t serial_steps_next_ = 0;
  std::vector<int> sweep_direction_;  // PartitionBalance::kSweep: per boundary, its last move
  std::vector<Partition*> part_of_;   // per core: its partition (in parts_)

  // Some simdgroup's first op uses the threadgroup-memory pipe (a newly dispatched simdgroup
  // may then win the grant at once).
  bool first_op_threadgroup_memory_ = false;
  std::vector<std::int32_t> trace_of_;  // (threadgroup * sgs_per_tg + simdgroup) -> trace or -1
  // Deps reaching back at most this many ops are served by the slot's ring.
  static constexpr std::size_t kMaxRecentOps = 4096;
  static constexpr std::size_t kInRing = ~std::size_t{0};
  std::vector<std::size_t> done_offset_;  // per trace: first entry in done_, or kInRing
  std::vector<Cycles> done_;              // traces whose deps reach further than the ring
  std::size_t ring_reach_ = 1;            // whole traces: the furthest reach the rings serve
  // Streamed launches, per threadgroup slot: the resident threadgroup's traces, and the
  // completion cycles of those whose deps reach further than the ring.
  std::vector<std::vector<StreamedTrace>> held_;
  std::vector<std::vector<Cycles>> held_done_;
  std::vector<PackedTraceReader> readers_;  // per simdgroup slot, for packed traces
  // A translated threadgroup's base traces, unpacked once and read in place by every
  // threadgroup translated from them (the map's nodes do not move).
  std::unordered_map<std::shared_ptr<const PackedTrace>, sim::SimdgroupTrace> unpacked_bases_;
  std::vector<std::vector<Cycles>> slot_rings_;  // per simdgroup slot: its ring (ring_for)
  std::vector<TraceBinding> binding_;  // per simdgroup of the threadgroup being dispatched
  std::vector<SimdgroupSlot> sgs_;
  std::vector<ThreadgroupSlot> tgs_;
  std::vector<Scheduler> scheds_;
  int live_capacity_ = 0;  // simdgroup slots per scheduler
  // Per scheduler: live_capacity_ entries, see live_by_age().
  std::vector<LiveEntry> live_by_age_;
  // Per core and per scheduler state sits on cache lines of its own (padded_array.h).
  PaddedArray<int> live_count_;       // per scheduler
  PaddedArray<int> tgm_candidates_;   // per scheduler: simdgroups for which tgm_candidate()
  PaddedArray<int> held_at_barrier_;  // per scheduler: see held_at_barrier_of()
  PaddedArray<int> free_slots_;       // per core
  PaddedArray<int> resident_sgs_;     // per core
  PaddedArray<int> tgm_next_;      // per core: scheduler first in line for the pipe (round robin)
  PaddedArray<int> tgm_grant_;     // per core: scheduler granted the pipe in the current cycle
  PaddedArray<Cycles> core_wake_;  // per core: earliest wake of its schedulers
};

}  // namespace marlin::timing
