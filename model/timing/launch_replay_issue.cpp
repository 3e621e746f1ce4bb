// LaunchReplay, part 2: the schedulers (issue, dependencies, pipes, barriers) and the timing
// of memory ops. See launch_replay.h for the model.
#include <algorithm>
#include <limits>
#include <span>

#include "model/common/invariant.h"
#include "model/timing/launch_replay.h"

namespace marlin::timing {
namespace {

constexpr Cycles kNever(std::numeric_limits<std::int64_t>::max() / 4);
constexpr std::size_t kChunk = 64;  // lanes per coalescer / bank-model call
// How far ahead of a simdgroup's next op its trace is prefetched: four 64-byte lines of ops.
constexpr std::uint32_t kPrefetchOps = 16;

// Device addresses: each buffer gets its own 2^40-byte range (memory_hierarchy.h).
constexpr int kBufferShift = kBufferAddressShift;

}  // namespace

void LaunchReplay::wake(int core, int local, Cycles at) {
  Scheduler& s = scheduler(core, local % schedulers_);
  s.wake = earlier(s.wake, later(at, s.last_issue + Cycles(1)));
  Cycles& woken = part(core).woken;
  woken = earlier(woken, s.wake);
  Cycles& core_wake = core_wake_[static_cast<std::size_t>(core)];
  core_wake = earlier(core_wake, s.wake);
}

void LaunchReplay::add_live(int core, int local) {
  const std::size_t at = static_cast<std::size_t>(core * schedulers_ + local % schedulers_);
  MARLIN_CHECK(live_count_[at] < live_capacity_, "a scheduler lists each of its slots once");
  SimdgroupSlot& g = sg(core, local);
  g.listed = &live_by_age_[at * static_cast<std::size_t>(live_capacity_) +
                           static_cast<std::size_t>(live_count_[at]++)];
  g.listed->local = local;
  sync_live(g);
}

void LaunchReplay::remove_live(int core, int local) {
  const std::size_t at = static_cast<std::size_t>(core * schedulers_ + local % schedulers_);
  LiveEntry* first = live_by_age_.data() + at * static_cast<std::size_t>(live_capacity_);
  LiveEntry* last = first + live_count_[at];
  SimdgroupSlot& g = sg(core, local);
  MARLIN_CHECK(g.listed >= first && g.listed < last && g.listed->local == local,
               "a finishing simdgroup is listed live");
  for (LiveEntry* e = g.listed; e + 1 < last; ++e) {
    *e = e[1];
    sg(core, e->local).listed = e;
  }
  g.listed = nullptr;
  --live_count_[at];
}

int LaunchReplay::select(int core, int k, Cycles t, bool tgm_granted, Cycles& earliest) {
  const Scheduler& s = scheduler(core, k);
  earliest = kNever;
  // Oldest first: the first eligible simdgroup is the policy's choice, unless the grant of
  // the shared pipe gives precedence to the oldest eligible threadgroup-memory op.
  int best = -1;
  for (const LiveEntry& g : live_by_age(core, k)) {
    if (g.blocked) continue;
    const int local = g.local;
    Cycles e = eligible(g, s);
    const bool tgm = g.pipe == Pipe::kThreadgroupMemory;
    // Without the grant a threadgroup-memory op waits at least until the next cycle.
    if (tgm && !tgm_granted && e <= t) e = t + Cycles(1);
    if (e > t) {
      earliest = earlier(earliest, e);
      continue;
    }
    if (tgm) return local;  // eligible only with the grant, which takes precedence
    if (best < 0) best = local;
    if (!tgm_granted) break;  // nothing younger can take precedence
  }
  // `earliest` is complete only when nothing is eligible, the one case the caller reads it.
  if (device_.policy == IssuePolicy::kGreedyThenOldest && s.last_issued >= 0 && best >= 0) {
    const SimdgroupSlot& g = sg(core, s.last_issued);
    if (g.live && !g.blocked && g.pipe != Pipe::kThreadgroupMemory && eligible(g, s) <= t) {
      return s.last_issued;
    }
  }
  return best;
}

int LaunchReplay::grant_threadgroup_memory(int core, Cycles t) {
  if (tgm_free(core) > t) return -1;
  const int first = tgm_next_[static_cast<std::size_t>(core)];
  for (int i = 0; i < schedulers_; ++i) {
    const int k = first + i < schedulers_ ? first + i : first + i - schedulers_;
    const Scheduler& s = scheduler(core, k);
    if (s.wake > t || s.last_issue == t) continue;
    if (tgm_candidates_[static_cast<std::size_t>(core * schedulers_ + k)] == 0) continue;
    for (const LiveEntry& g : live_by_age(core, k)) {
      // tgm_candidate() from the copies (live_by_age() lists live simdgroups only).
      if (!g.blocked && g.pipe == Pipe::kThreadgroupMemory && g.ready_at <= t) return k;
    }
  }
  return -1;
}

void LaunchReplay::try_issue(int core, int k, Cycles t) {
  Scheduler& s = scheduler(core, k);
  Cycles earliest = kNever;
  const int best = select(core, k, t, tgm_grant_[static_cast<std::size_t>(core)] == k, earliest);
  if (best < 0) {
    s.wake = earliest;
    return;
  }
  s.last_issue = t;
  s.last_issued = best;
  s.wake = t + Cycles(1);
  issue(core, k, best, t);
  if (device_.batch_alu_runs) issue_ahead(core, k, t);
}

template <class Charge>
void LaunchReplay::classify_wait(SimdgroupSlot& g, Cycles t, Cycles pipe_last_issue,
                                 Cycles pipe_free, StallClass holder, Charge charge) {
  Cycles x = g.wait_from;
  if (g.barrier_until > x) {
    const Cycles b = earlier(t, g.barrier_until);
    charge(StallClass::kBarrierWait, x, b);
    x = b;
  }
  if (g.dep_ready > x) {
    const Cycles d = earlier(t, g.dep_ready);
    charge(g.dep_class, x, d);
    x = d;
  }
  const Cycles busy_from = later(x, pipe_last_issue + Cycles(1));
  const Cycles busy_to = earlier(t, pipe_free);
  if (busy_to > busy_from) {
    charge(StallClass::kIssueWait, x, busy_from);
    charge(holder, busy_from, busy_to);
    x = busy_to;
  }
  charge(StallClass::kIssueWait, x, t);
  g.barrier_until = Cycles(0);
}

bool LaunchReplay::issue_alu_instruction(SimdgroupSlot& g, Scheduler& s, CoreCounters& counters,
                                         const sim::TraceOp& op, const OpCost& cost, Cycles t) {
  const auto pipe = static_cast<std::size_t>(g.pipe);
  s.pipe_free[pipe] = t + cost.throughput;
  s.pipe_holder[pipe] = StallClass::kAluBusy;
  counters.registry.increment(counters.alu_instructions);
  if (g.run_left == 0) {
    g.run_left = std::max<std::uint32_t>(op.count, 1);
    if (g.pc == 0 || g.ops[(g.pc - 1) & g.ops_mask].op != sim::OpClass::kAlu) {
      g.segment_start = t;
    }
  }
  if (--g.run_left == 0) return true;
  // More instructions of the run: independent of each other, limited by the pipe only.
  g.wait_from = t + Cycles(1);
  g.dep_ready = Cycles(0);
  g.ready_at = t + Cycles(1);
  sync_live(g);
  return false;
}

void LaunchReplay::issue(int core, int k, int local, Cycles t) {
  SimdgroupSlot& g = sg(core, local);
  Scheduler& s = scheduler(core, k);
  Partition& p = part(core);
  CoreCounters& counters = *p.counters;
  const sim::TraceOp& op = g.ops[g.pc & g.ops_mask];
  const auto pipe = static_cast<std::size_t>(g.pipe);

  // Classify the wait since the previous issue with the pipe state before this issue.
  const Cycles pipe_free = s.pipe_free[pipe];
  Cycles pipe_last_issue(0);
  StallClass holder = StallClass::kAluBusy;
  if (pipe < kSchedulerPipeCount) {
    pipe_last_issue = s.pipe_last_issue[pipe];
    holder = s.pipe_holder[pipe];
    s.pipe_last_issue[pipe] = t;
  } else if (g.pipe == Pipe::kThreadgroupMemory) {
    // Shared by the core's schedulers: busy for this simdgroup even in the cycle of the
    // previous access, which another scheduler may have issued.
    pipe_last_issue = Cycles(-1);
    holder = StallClass::kThreadgroupMemoryWait;
  }
  if (device_.sink == nullptr) {
    StallBreakdown& breakdown = p.breakdown;
    classify_wait(g, t, pipe_last_issue, pipe_free, holder,
                  [&breakdown](StallClass stall, Cycles from, Cycles to) {
                    if (to > from) breakdown.add(stall, (to - from).count());
                  });
    breakdown.add(StallClass::kIssuing, 1);
  } else {
    classify_wait(g, t, pipe_last_issue, pipe_free, holder,
                  [this, core, local](StallClass stall, Cycles from, Cycles to) {
                    charge(core, local, stall, from, to);
                  });
    charge(core, local, StallClass::kIssuing, t, t + Cycles(1));
  }
  counters.registry.increment(counters.instructions);
  bool deferred = false;
  std::uint32_t first_request = 0;  // in a parallel window: the op's first logged request

  Cycles done = t;
  Cycles order_ready = t + Cycles(1);
  const sim::MemAccess* accesses = g.accesses;
  switch (op.op) {
    case sim::OpClass::kAlu: {
      const OpCost& cost = device_.costs->alu(op.kind);
      if (!issue_alu_instruction(g, s, counters, op, cost, t)) return;
      done = alu_done(g, op, cost, t);
      break;
    }
    case sim::OpClass::kShuffle:
    case sim::OpClass::kReduction:
    case sim::OpClass::kVote:
    case sim::OpClass::kMatrixMultiply:
    case sim::OpClass::kMatrixFill:
    case sim::OpClass::kMatrixCopy: {
      const OpCost cost = device_.costs->compute(op);
      const bool multiply = op.op == sim::OpClass::kMatrixMultiply;
      s.pipe_free[pipe] = t + cost.throughput;
      s.pipe_holder[pipe] = multiply ? StallClass::kMatrixBusy : StallClass::kAluBusy;
      if (multiply) {
        counters.registry.increment(counters.matrix_multiplies);
        counters.registry.add(counters.matrix_pipe_cycles, cost.throughput.count());
      } else {
        counters.registry.increment(counters.alu_instructions);
      }
      done = t + cost.latency;
      break;
    }
    case sim::OpClass::kDeviceLoad:
    case sim::OpClass::kDeviceStore:
    case sim::OpClass::kThreadgroupLoad:
    case sim::OpClass::kThreadgroupStore:
    case sim::OpClass::kAtomic:
    case sim::OpClass::kMatrixLoad:
    case sim::OpClass::kMatrixStore:
      if (g.pipe == Pipe::kThreadgroupMemory) {
        counters.registry.increment(counters.threadgroup_memory_ops);
        done = threadgroup_memory(core, op, accesses, g.shifts, t);
      } else {
        counters.registry.increment(counters.device_memory_ops);
        first_request = static_cast<std::uint32_t>(p.log.size());
        done = device_memory(core, op, accesses, g.shifts, t, sim::is_store(op.op), deferred);
      }
      break;
    case sim::OpClass::kThreadgroupBarrier:
      arrive_at_barrier(core, local, t);
      return;
    case sim::OpClass::kSimdBarrier:
      counters.registry.increment(counters.simdgroup_barriers);
      done = t + Cycles(device_.threadgroup_memory.simdgroup_barrier_cycles);
      g.barrier_until = done;
      order_ready = std::max(order_ready, done);
      break;
  }
  std::int32_t pending = -1;
  if (deferred) {
    // Known no sooner than the window's end: until then its dependents see that bound.
    pending = static_cast<std::int32_t>(p.pending.size());
    p.pending.push_back(PendingOp{.core = core,
                                  .local = local,
                                  .op = g.pc,
                                  .done = done,
                                  .first_request = first_request,
                                  .end_request = static_cast<std::uint32_t>(p.log.size())});
    done = p.window_end;
    ++g.pending_ops;
  }
  complete_op_inline(core, local, done, device_.costs->traits(op).wait_class, pending, t,
                     order_ready);
}

const OpCost& LaunchReplay::issue_alu_start(int core, int k, int local, Cycles t) {
  SimdgroupSlot& g = sg(core, local);
  const sim::TraceOp& op = g.ops[g.pc & g.ops_mask];
  MARLIN_CHECK(op.op == sim::OpClass::kAlu && g.run_left == 0 && g.wait_from == t &&
                   static_cast<std::size_t>(g.pipe) < kSchedulerPipeCount,
               "an ALU op starts where its simdgroup's last issue left off");
  // classify_wait() over the empty [wait_from, t) charges nothing and clears barrier_until.
  g.barrier_until = Cycles(0);
  Scheduler& s = scheduler(core, k);
  s.pipe_last_issue[static_cast<std::size_t>(g.pipe)] = t;
  Partition& p = part(core);
  if (device_.sink == nullptr) {
    p.breakdown.add(StallClass::kIssuing, 1);
  } else {
    charge(core, local, StallClass::kIssuing, t, t + Cycles(1));
  }
  CoreCounters& counters = *p.counters;
  counters.registry.increment(counters.instructions);
  const OpCost& cost = device_.costs->alu(op.kind);
  if (issue_alu_instruction(g, s, counters, op, cost, t)) {
    complete_op_inline(core, local, alu_done(g, op, cost, t), device_.costs->traits(op).wait_class,
                       -1, t, t + Cycles(1));
  }
  return cost;
}

void LaunchReplay::complete_op(int core, int local, Cycles done, StallClass wait_class,
                               std::int32_t pending, Cycles t, Cycles order_ready) {
  complete_op_inline(core, local, done, wait_class, pending, t, order_ready);
}

void LaunchReplay::complete_op_inline(int core, int local, Cycles done, StallClass wait_class,
                                      std::int32_t pending, Cycles t, Cycles order_ready) {
  SimdgroupSlot& g = sg(core, local);
  g.done[g.pc & g.done_mask] = done;
  note_done(core, local, done, wait_class, pending);
  ++g.pc;
  g.run_left = 0;
  g.wait_from = t + Cycles(1);
  prepare_next_inline(core, local, order_ready);
}

void LaunchReplay::defer_done(int core, int local, Cycles done, StallClass wait_class,
                              std::int32_t pending) {
  part(core).done_updates.push_back(DoneUpdate{
      .core = core, .local = local, .pending = pending, .done = done, .wait_class = wait_class});
}

void LaunchReplay::prepare_next(int core, int local, Cycles order_ready) {
  prepare_next_inline(core, local, order_ready);
}

void LaunchReplay::prepare_next_inline(int core, int local, Cycles order_ready) {
  SimdgroupSlot& g = sg(core, local);
  if (g.pc >= g.op_count) {
    if (g.pending_ops == 0) {
      finish_simdgroup(core, local, std::max(order_ready, g.last_done));
      return;
    }
    // Its end is known when its pending ops are.
    ++tg(core, local / sgs_per_tg_).unsettled;
    part(core).finishes.push_back(
        PendingFinish{.core = core, .local = local, .order_ready = order_ready});
    retire_simdgroup(core, local);
    return;
  }
  if (g.pc + 2 > g.unpacked && g.unpacked < g.op_count) unpack_more(g);
  const sim::TraceOp& op = g.ops[g.pc & g.ops_mask];
  // A whole trace is read in place, op after op, by every simdgroup slot at once: too many
  // streams for the host's prefetcher. Ask for the ops ahead, and for this op's accesses,
  // which its issue reads a scheduler step or more later.
  if (g.pc + kPrefetchOps < g.op_count) {
    __builtin_prefetch(&g.ops[(g.pc + kPrefetchOps) & g.ops_mask]);
  }
  if (sim::has_accesses(op.op)) __builtin_prefetch(g.accesses + op.first_access);
  g.dep_ready = Cycles(0);
  if (op.dep >= 0) {
    g.dep_ready = g.done[static_cast<std::uint32_t>(op.dep) & g.done_mask];
    g.dep_class =
        device_.costs->traits(g.ops[static_cast<std::uint32_t>(op.dep) & g.ops_mask]).wait_class;
  }
  g.order_ready = order_ready;
  g.ready_at = later(order_ready, g.dep_ready);
  // `g` is live and not held at a barrier here: it is a grant candidate exactly when its
  // pipe is threadgroup memory.
  const Pipe pipe = pipe_of(op);
  if ((pipe == Pipe::kThreadgroupMemory) != (g.pipe == Pipe::kThreadgroupMemory)) {
    tgm_candidates_of(core, local) += pipe == Pipe::kThreadgroupMemory ? 1 : -1;
  }
  g.pipe = pipe;
  sync_live(g);
}

void LaunchReplay::unpack_more(SimdgroupSlot& g) {
  g.reader->fill(g.pc);
  g.ops = g.reader->ops();
  g.ops_mask = g.reader->mask();
  g.accesses = g.reader->accesses();
  g.unpacked = g.reader->end();
}

void LaunchReplay::finish_simdgroup(int core, int local, Cycles end) {
  settle_simdgroup(core, local, end);
  retire_simdgroup(core, local);
}

void LaunchReplay::settle_simdgroup(int core, int local, Cycles end) {
  SimdgroupSlot& g = sg(core, local);
  Cycles x = g.wait_from;
  if (g.barrier_until > x) {
    const Cycles b = std::min(end, g.barrier_until);
    charge(core, local, StallClass::kBarrierWait, x, b);
    x = b;
  }
  charge(core, local, g.last_done_class, x, end);
  g.barrier_until = Cycles(0);
  g.end = end;
  const int slot = local / sgs_per_tg_;
  ThreadgroupSlot& group = tg(core, slot);
  group.end = std::max(group.end, end);
}

void LaunchReplay::retire_simdgroup(int core, int local) {
  SimdgroupSlot& g = sg(core, local);
  const bool was_candidate = tgm_candidate(g);
  g.live = false;
  recount_tgm(core, local, was_candidate);
  remove_live(core, local);
  const int slot = local / sgs_per_tg_;
  ThreadgroupSlot& group = tg(core, slot);
  --group.live;
  if (group.live == 0) {
    end_when_settled(core, slot);
  } else {
    check_release(core, slot);
  }
}

void LaunchReplay::end_when_settled(int core, int slot) {
  const ThreadgroupSlot& group = tg(core, slot);
  if (group.live == 0 && group.unsettled == 0) {
    part(core).ends.push(EndEvent{group.end, core, slot});
  }
}

void LaunchReplay::arrive_at_barrier(int core, int local, Cycles t) {
  SimdgroupSlot& g = sg(core, local);
  const bool was_candidate = tgm_candidate(g);
  g.blocked = true;
  sync_live(g);
  ++held_at_barrier_of(core, local);
  recount_tgm(core, local, was_candidate);
  g.barrier_issue = t;
  CoreCounters& counters = *part(core).counters;
  counters.registry.increment(counters.threadgroup_barriers);
  const int slot = local / sgs_per_tg_;
  ThreadgroupSlot& group = tg(core, slot);
  ++group.arrived;
  group.last_arrival = t;
  check_release(core, slot);
}

void LaunchReplay::check_release(int core, int slot) {
  ThreadgroupSlot& group = tg(core, slot);
  if (group.arrived == 0 || group.arrived < group.live) return;
  const Cycles release =
      group.last_arrival + Cycles(device_.threadgroup_memory.threadgroup_barrier_cycles);
  group.arrived = 0;
  CoreCounters& counters = *part(core).counters;
  counters.registry.increment(counters.barrier_releases);
  for (int i = 0; i < sgs_per_tg_; ++i) {
    const int local = slot * sgs_per_tg_ + i;
    SimdgroupSlot& g = sg(core, local);
    if (!g.live || !g.blocked) continue;
    const bool was_candidate = tgm_candidate(g);
    g.blocked = false;
    sync_live(g);
    --held_at_barrier_of(core, local);
    recount_tgm(core, local, was_candidate);
    g.done[g.pc & g.done_mask] = release;
    note_done(core, local, release, StallClass::kBarrierWait, -1);
    ++g.pc;
    g.wait_from = g.barrier_issue + Cycles(1);
    g.barrier_until = release;
    prepare_next(core, local, std::max(g.wait_from, release));
    if (g.live) wake(core, local, g.ready_at);
  }
}

// ---- Memory ops ---------------------------------------------------------------------------

LaneMask LaunchReplay::gather_lanes(std::vector<LaneAccess>& lanes, const sim::MemAccess* stored,
                                    std::uint32_t from, std::size_t n, bool device,
                                    std::span<const sim::BufferShift> shifts) {
  LaneMask mask = 0;
  // An op's accesses are mostly to one buffer: its shift is looked up once.
  std::uint32_t buffer = ~std::uint32_t{0};
  std::uint32_t shift = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const sim::MemAccess a = sim::access_at(stored, from + static_cast<std::uint32_t>(i));
    if (!shifts.empty() && a.buffer != buffer) {
      buffer = a.buffer;
      shift = sim::shift_of(shifts, a.buffer);
    }
    const std::uint64_t base = device ? static_cast<std::uint64_t>(a.buffer) << kBufferShift : 0;
    lanes[i] = LaneAccess{base + static_cast<std::uint32_t>(a.offset + shift), a.bytes};
    if (a.bytes > 0) mask |= LaneMask{1} << i;
  }
  return mask;
}

Cycles LaunchReplay::device_memory(int core, const sim::TraceOp& op, const sim::MemAccess* accesses,
                                   std::span<const sim::BufferShift> shifts, Cycles t,
                                   bool is_write, bool& deferred) {
  Partition& p = part(core);
  Coalescer& coalescer = *p.coalescer;
  Cycles done = t;
  const sim::MemAccess* stored = accesses + op.first_access;
  // An affine run of active lanes goes to the coalescer as one (first access, stride) pair.
  const bool affine = sim::is_affine_run(stored, op.count) && stored[0].bytes > 0;
  for (std::uint32_t from = 0; from < op.count; from += kChunk) {
    const std::size_t n = std::min<std::size_t>(op.count - from, kChunk);
    std::span<const std::uint64_t> lines;
    if (affine) {
      const sim::MemAccess first = sim::access_at(stored, from);
      lines =
          coalescer.coalesce_affine(static_cast<std::uint64_t>(first.buffer) << kBufferShift,
                                    first.offset + sim::shift_of(shifts, first.buffer),
                                    stored[1].offset, first.bytes, static_cast<std::uint32_t>(n));
    } else {
      const LaneMask mask = gather_lanes(p.lanes, stored, from, n, true, shifts);
      lines = coalescer.coalesce(mask, std::span<const LaneAccess>(p.lanes.data(), n));
    }
    if (!p.deferring) {
      for (const std::uint64_t line : lines) {
        done = std::max(done, device_.memory->access(core, t, line, is_write).ready);
      }
      continue;
    }
    for (const std::uint64_t line : lines) {
      const std::optional<Cycles> ready =
          device_.memory->access_deferred(core, t, p.pass, line, is_write, p.log, p.settled);
      if (ready.has_value()) {
        done = std::max(done, *ready);
      } else {
        deferred = true;
      }
    }
  }
  return done;
}

Cycles LaunchReplay::threadgroup_memory(int core, const sim::TraceOp& op,
                                        const sim::MemAccess* accesses,
                                        std::span<const sim::BufferShift> shifts, Cycles t) {
  Cycles busy(0);
  ThreadgroupMemoryBanks& banks = *(*device_.banks)[static_cast<std::size_t>(core)];
  const sim::MemAccess* stored = accesses + op.first_access;
  const bool affine = sim::is_affine_run(stored, op.count);
  for (std::uint32_t from = 0; from < op.count; from += kChunk) {
    const std::size_t n = std::min<std::size_t>(op.count - from, kChunk);
    if (affine) {
      const sim::MemAccess first = sim::access_at(stored, from);
      busy += banks
                  .access_affine(first.offset + sim::shift_of(shifts, first.buffer),
                                 stored[1].offset, first.bytes, static_cast<std::uint32_t>(n))
                  .busy_cycles;
      continue;
    }
    std::vector<LaneAccess>& lanes = part(core).lanes;
    const LaneMask mask = gather_lanes(lanes, stored, from, n, false, shifts);
    busy += banks.access(mask, std::span<const LaneAccess>(lanes.data(), n)).busy_cycles;
  }
  for (int k = 0; k < schedulers_; ++k) {
    scheduler(core, k).pipe_free[static_cast<std::size_t>(Pipe::kThreadgroupMemory)] = t + busy;
  }
  tgm_next_[static_cast<std::size_t>(core)] =
      (tgm_grant_[static_cast<std::size_t>(core)] + 1) % schedulers_;
  // The first bank pass returns after the latency; each further pass adds one cycle.
  return t + Cycles(device_.threadgroup_memory.latency_cycles) + std::max(busy, Cycles(1)) -
         Cycles(1);
}

}  // namespace marlin::timing
