// LaunchReplay, part 3: issuing ahead. After a scheduler issued an instruction, the compute
// instructions it would issue next, of any of its simdgroups, are issued in the same replay
// step, each at its cycle, until something outside the scheduler could change its choices.
//
// Why it is exact: a scheduler issues, at each cycle from its last issue on, the simdgroup its
// policy picks among those eligible then (oldest first: the first in age order; greedy: the one
// that issued last while it is eligible), and nothing when none is. Compute instructions touch
// only their simdgroup, the scheduler's pipes, the counters and the stall breakdown, and the
// other simdgroups' eligibility only grows while they do not issue, so issuing them early
// changes nothing else. Memory ops, barriers and a trace's last instruction (which ends the
// simdgroup) affect other simdgroups and are left to the normal path, at their own cycle.
//
// What could change the scheduler's choices from outside (ahead_bounds):
// - a threadgroup-memory op of its own, once eligible: it may take the core's grant, which
//   depends on the other schedulers;
// - a simdgroup held at a barrier, once released: not before release_bound();
// - a simdgroup a dispatch brings into a free slot, eligible at once: it is younger than every
//   simdgroup present, so it takes only a cycle in which none of them is eligible (a gap), or
//   the grant when a threadgroup's first op uses threadgroup memory;
// - the end of a parallel window, where pending completions land.
// Inside an ALU run the simdgroup issues the rest at once (batch_alu_run) up to the first
// cycle another simdgroup could be chosen in.
#include <algorithm>
#include <limits>

#include "model/common/invariant.h"
#include "model/timing/launch_replay.h"

namespace marlin::timing {
namespace {

constexpr Cycles kNeverIssue(std::numeric_limits<std::int64_t>::max() / 4);

}  // namespace

LaunchReplay::AheadBounds LaunchReplay::ahead_bounds(int core, int k, Cycles t) const {
  AheadBounds b{part(core).window_end, kNeverIssue};
  // A dispatch into a slot of the scheduler without a live simdgroup brings younger
  // simdgroups, eligible from t: they take a cycle no older one is eligible in, or the grant.
  if (next_threadgroup_ < total_threadgroups_ && live_count_of(core, k) < slots_of_scheduler(k)) {
    if (first_op_threadgroup_memory_) return {t, t};
    b.gap = t;
  }
  // Only simdgroups held at a barrier and threadgroup-memory ops bound it: without either,
  // nothing to scan.
  const auto at = static_cast<std::size_t>(core * schedulers_ + k);
  if (held_at_barrier_[at] == 0 && tgm_candidates_[at] == 0) return b;
  const Cycles barrier(device_.threadgroup_memory.threadgroup_barrier_cycles);
  const Scheduler& s = scheduler(core, k);
  for (const LiveEntry& g : live_by_age(core, k)) {
    if (g.blocked) {
      b.hard = earlier(b.hard, release_bound(core, g.local / sgs_per_tg_, t, barrier));
    } else if (g.pipe == Pipe::kThreadgroupMemory) {
      b.hard = earlier(b.hard, eligible(g, s));
    }
    if (b.hard <= t + Cycles(1)) return b;  // nothing can issue ahead
  }
  return b;
}

Cycles LaunchReplay::release_bound(int core, int slot, Cycles t, Cycles barrier) const {
  // Released by an arrival (at t or later): ready from the arrival + `barrier`. Released by
  // the last running simdgroup finishing: not before it issues its last op, one op a cycle.
  Cycles bound = t + barrier;
  for (int i = 0; i < sgs_per_tg_; ++i) {
    const SimdgroupSlot& g = sg(core, slot * sgs_per_tg_ + i);
    if (!g.live || g.blocked) continue;
    bound = earlier(bound, last_issue_bound(g, t));
  }
  return later(bound, t);
}

bool LaunchReplay::batch_alu_run(int core, int k, int local, Cycles t, const OpCost& cost,
                                 Cycles horizon) {
  SimdgroupSlot& g = sg(core, local);
  Scheduler& s = scheduler(core, k);
  const Cycles throughput = cost.throughput;
  const Cycles spacing = std::max(throughput, Cycles(1));
  // Instructions j = 1..n at t + j * spacing, all before the horizon; the trace's last
  // instruction stays.
  const bool trace_end = g.pc + 1 >= g.op_count;
  std::int64_t n = static_cast<std::int64_t>(g.run_left) - (trace_end ? 1 : 0);
  n = std::min(n, (horizon - t - Cycles(1)).count() / spacing.count());
  if (n <= 0) return false;
  const Cycles last = t + spacing * n;
  // Per instruction: the pipe busy since the previous one (spacing - 1 cycles), then issuing.
  if (device_.sink == nullptr) {
    StallBreakdown& breakdown = part(core).breakdown;
    breakdown.add(StallClass::kAluBusy, n * (spacing.count() - 1));
    breakdown.add(StallClass::kIssuing, n);
  } else {
    for (Cycles at = t + spacing; at <= last; at += spacing) {
      charge(core, local, StallClass::kAluBusy, at - spacing + Cycles(1), at);
      charge(core, local, StallClass::kIssuing, at, at + Cycles(1));
    }
  }
  CoreCounters& counters = *part(core).counters;
  counters.registry.add(counters.instructions, n);
  counters.registry.add(counters.alu_instructions, n);
  const auto pipe = static_cast<std::size_t>(g.pipe);
  MARLIN_CHECK(pipe < kSchedulerPipeCount, "an ALU run uses one of the scheduler's pipes");
  s.pipe_free[pipe] = last + throughput;
  s.pipe_last_issue[pipe] = last;
  s.last_issue = last;
  s.wake = last + Cycles(1);
  g.run_left -= static_cast<std::uint32_t>(n);
  if (g.run_left == 0) {
    // The run's last instruction issued at `last`: the op completes as issue() completes it.
    complete_op(core, local, alu_done(g, g.ops[g.pc & g.ops_mask], cost, last),
                StallClass::kAluBusy, -1, last, last + Cycles(1));
    return true;
  }
  g.wait_from = last + Cycles(1);
  g.ready_at = last + Cycles(1);
  sync_live(g);
  return true;
}

LaunchReplay::AheadChoice LaunchReplay::choose_ahead(int core, int k, Cycles next) const {
  const Scheduler& s = scheduler(core, k);
  AheadChoice c;
  Cycles scanned = kNeverIssue;  // earliest eligibility of the simdgroups scanned so far
  for (const LiveEntry& g : live_by_age(core, k)) {
    if (g.blocked || g.pipe == Pipe::kThreadgroupMemory) continue;
    const Cycles e = later(eligible(g, s), next);
    if (e < c.at) {  // the first eligible in age order; all scanned before it are older
      c.chosen = g.local;
      c.at = e;
      c.older = scanned;
      if (e == next) break;  // none can be eligible sooner
    }
    scanned = earlier(scanned, e);
  }
  if (device_.policy == IssuePolicy::kGreedyThenOldest && s.last_issued >= 0 &&
      s.last_issued != c.chosen) {
    // Greedy keeps the simdgroup that issued last when it is eligible in the chosen cycle.
    const SimdgroupSlot& last = sg(core, s.last_issued);
    if (last.live && !last.blocked && last.pipe != Pipe::kThreadgroupMemory &&
        eligible(last, s) <= c.at) {
      c.chosen = s.last_issued;
    }
  }
  return c;
}

Cycles LaunchReplay::others_eligible(int core, int k, int local) const {
  const Scheduler& s = scheduler(core, k);
  Cycles earliest = kNeverIssue;
  for (const LiveEntry& g : live_by_age(core, k)) {
    if (g.local == local || g.blocked || g.pipe == Pipe::kThreadgroupMemory) continue;
    earliest = earlier(earliest, eligible(g, s));
  }
  return earliest;
}

void LaunchReplay::issue_ahead(int core, int k, Cycles t) {
  Scheduler& s = scheduler(core, k);
  const bool oldest_first = device_.policy == IssuePolicy::kOldestFirst;
  AheadBounds bounds = ahead_bounds(core, k, t);
  AheadChoice c;
  SimdgroupSlot* g = nullptr;  // the chosen simdgroup
  // Where issuing ahead stops, nothing of the scheduler's can issue before `earliest`: its
  // compute choice, or the bound on its threadgroup-memory ops and held simdgroups. It sleeps
  // until then instead of being visited for nothing (what else wakes it calls wake()).
  const auto stop = [&s](Cycles earliest) { s.wake = std::max(s.wake, earliest); };
  // Where the chosen simdgroup's run, one instruction a cycle, must stop: the first cycle an
  // older simdgroup could take (oldest first; none under greedy), or the hard bound.
  const auto consecutive_horizon = [&] {
    return oldest_first ? std::min(bounds.hard, c.older) : bounds.hard;
  };
  for (;;) {
    const Cycles next = s.last_issue + Cycles(1);
    if (next >= bounds.hard) return;
    // The scheduler's choice at the first cycle from `next` where one of its simdgroups is
    // eligible. Only the chosen simdgroup issues here and the others' eligibility only grows
    // (the pipes get busier), so while it is eligible in consecutive cycles, before every
    // older one (oldest first) or at all (greedy), it stays the choice. (Compute instructions
    // never hold it at a barrier; a threadgroup-memory op next is left to the grant.)
    if (g != nullptr && g->pipe != Pipe::kThreadgroupMemory && eligible(*g, s) <= next &&
        (!oldest_first || next < c.older)) {
      c.at = next;
    } else {
      c = choose_ahead(core, k, next);
      if (c.chosen < 0) return stop(bounds.hard);
      g = &sg(core, c.chosen);
    }
    if (c.at >= bounds.hard || (c.at > next && c.at > bounds.gap)) {
      return stop(std::min(c.at, bounds.hard));
    }
    const sim::TraceOp& op = g->ops[g->pc & g->ops_mask];
    // Memory ops, barriers and the trace's last instruction affect other simdgroups: the
    // normal path issues them at their cycle.
    if (!sim::is_compute(op.op)) return stop(c.at);
    const bool in_run = op.op == sim::OpClass::kAlu && g->run_left > 0;
    const std::uint32_t left = op.op == sim::OpClass::kAlu
                                   ? (in_run ? g->run_left : std::max<std::uint32_t>(op.count, 1))
                                   : 1;
    if (left == 1 && g->pc + 1 >= g->op_count) return stop(c.at);
    bool issued = false;
    if (in_run && g->run_left > 1 && c.chosen == s.last_issued) {
      // The rest of the run in one step, before any other simdgroup could be chosen: in
      // consecutive cycles only older ones are (none under greedy); a slower pipe leaves gaps
      // any of them, or a dispatched one, may take.
      const OpCost& cost = device_.costs->alu(op.kind);
      const Cycles horizon =
          cost.throughput <= Cycles(1)
              ? consecutive_horizon()
              : std::min({bounds.hard, bounds.gap, others_eligible(core, k, c.chosen)});
      issued = batch_alu_run(core, k, c.chosen, s.last_issue, cost, horizon);
    }
    if (!issued) {
      s.last_issue = c.at;
      s.last_issued = c.chosen;
      s.wake = c.at + Cycles(1);
      if (op.op == sim::OpClass::kAlu && !in_run && g->wait_from == c.at) {
        // An ALU op right after its simdgroup's previous issue: its first instruction, and
        // on a pipe of one instruction a cycle the rest of the run as the loop's next round
        // would batch it (the same choice: eligible in the next cycle, before older ones).
        const OpCost& cost = issue_alu_start(core, k, c.chosen, c.at);
        if (g->run_left > 0 && cost.throughput <= Cycles(1)) {
          batch_alu_run(core, k, c.chosen, c.at, cost, consecutive_horizon());
        }
      } else {
        issue(core, k, c.chosen, c.at);
      }
    }
    // A threadgroup-memory op next may take the core's grant once eligible.
    if (g->pipe == Pipe::kThreadgroupMemory) {
      bounds.hard = earlier(bounds.hard, eligible(*g, s));
    }
  }
}

}  // namespace marlin::timing
