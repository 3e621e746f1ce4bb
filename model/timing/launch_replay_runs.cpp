// LaunchReplay, part 3: issuing ahead. After a scheduler issued a simdgroup's instruction,
// the simdgroup's following compute instructions are issued in the same replay step when no
// other simdgroup of the scheduler can become eligible before them.
//
// Why it is exact: sequentially, the scheduler issues the simdgroup at each cycle its next
// instruction becomes eligible as long as no other simdgroup of the scheduler is eligible
// (oldest first, greedy and the threadgroup-memory grant all pick the only eligible
// simdgroup), and between those cycles it finds nothing to issue. Compute instructions touch
// only the simdgroup, its scheduler's pipes, the counters and the stall breakdown, and the
// other simdgroups' eligibility only grows while they do not issue, so issuing them early
// changes nothing else. Memory ops, barriers and the trace's last instruction (which ends the
// simdgroup) affect other simdgroups and are left to the normal path, at their own cycle.
//
// Other simdgroups may be eligible too, as long as the simdgroup issues in consecutive cycles
// and none of them would be chosen over it: then the scheduler has no cycle to give them.
// Chosen over it can be an older simdgroup (oldest first; the greedy policy keeps the
// simdgroup that issued last) and a threadgroup-memory op holding the core's grant. A younger
// simdgroup cannot issue, so it cannot reach a threadgroup-memory op either, unless it sits
// at one now, after the barrier it waits at, or as the first op of a threadgroup that a
// dispatch may bring.
#include <algorithm>
#include <limits>

#include "model/common/invariant.h"
#include "model/timing/launch_replay.h"

namespace marlin::timing {
namespace {

constexpr Cycles kNeverIssue(std::numeric_limits<std::int64_t>::max() / 4);

}  // namespace

LaunchReplay::RunHorizons LaunchReplay::run_horizons(int core, int k, int local, Cycles t,
                                                     Cycles stop_at, bool preempt_decides) const {
  const Scheduler& s = scheduler(core, k);
  const SimdgroupSlot& own = sg(core, local);
  const bool oldest_first = device_.policy == IssuePolicy::kOldestFirst;
  const bool may_dispatch = next_threadgroup_ < total_threadgroups_;
  const int own_slot = local / sgs_per_tg_;
  RunHorizons h{kNeverIssue, kNeverIssue};
  int live_elsewhere = 0;  // live simdgroups of the scheduler outside the own threadgroup
  for (const int other : live_by_age(core, k)) {
    if (other == local) continue;
    const SimdgroupSlot& g = sg(core, other);
    if (other / sgs_per_tg_ == own_slot) {
      // The threadgroup of `local` can neither end nor pass a barrier before the run ends.
      if (g.blocked) continue;
    } else {
      ++live_elsewhere;
    }
    const bool older = oldest_first && g.age < own.age;
    if (g.blocked) {
      // Its barrier may release at any cycle; then it issues the op after the barrier, or
      // finishes and a younger threadgroup may come.
      h.any = t;
      const bool last = g.pc + 1 >= g.op_count;
      if (older || (last && may_dispatch && first_op_threadgroup_memory_) ||
          (!last && pipe_of(g.ops[(g.pc + 1) & g.ops_mask]) == Pipe::kThreadgroupMemory)) {
        return {t, t};
      }
    } else {
      // Its readiness is fixed until it issues, and the pipes only get busier.
      const Cycles e = eligible(g, core, s);
      h.any = std::min(h.any, e);
      if (older || g.pipe == Pipe::kThreadgroupMemory) h.preempt = std::min(h.preempt, e);
    }
    if ((preempt_decides ? h.preempt : h.any) <= stop_at) return h;
  }
  // A slot of another threadgroup without a live simdgroup may receive a threadgroup (its
  // simdgroups are younger than `local`).
  const int slots_elsewhere = slots_of_scheduler(k) - slots_of_scheduler_in(own_slot, k);
  if (may_dispatch && live_elsewhere < slots_elsewhere) {
    h.any = t;
    if (first_op_threadgroup_memory_) return {t, t};
  }
  return h;
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
  return true;
}

void LaunchReplay::issue_ahead(int core, int k, int local, Cycles t) {
  SimdgroupSlot& g = sg(core, local);
  Scheduler& s = scheduler(core, k);
  RunHorizons horizon{Cycles(-1), Cycles(-1)};  // computed when first needed
  // In a parallel window nothing issues ahead past its end, where pending completions land.
  const Cycles cap = part(core).window_end;
  while (g.live && !g.blocked) {
    const sim::TraceOp& op = g.ops[g.pc & g.ops_mask];
    if (!sim::is_compute(op.op)) return;  // its issue touches only the simdgroup
    const std::uint32_t left =
        op.op == sim::OpClass::kAlu
            ? (g.run_left > 0 ? g.run_left : std::max<std::uint32_t>(op.count, 1))
            : 1;
    // The trace's last instruction finishes the simdgroup: leave it to the normal path.
    if (left == 1 && g.pc + 1 >= g.op_count) return;
    const Cycles at = eligible(g, core, s);
    const bool consecutive = at == s.last_issue + Cycles(1);
    if (horizon.any < Cycles(0)) {
      horizon = run_horizons(core, k, local, t, at, consecutive);
      horizon.any = std::min(horizon.any, cap);
      horizon.preempt = std::min(horizon.preempt, cap);
    }
    if (at >= (consecutive ? horizon.preempt : horizon.any)) return;
    if (op.op == sim::OpClass::kAlu && g.run_left > 1) {
      // Inside a run: the rest in one step; one per cycle, they leave no cycle to the other
      // simdgroups.
      const OpCost& cost = device_.costs->alu(op.kind);
      if (batch_alu_run(core, k, local, s.last_issue, cost,
                        cost.throughput <= Cycles(1) ? horizon.preempt : horizon.any)) {
        continue;
      }
    }
    s.last_issue = at;
    s.last_issued = local;
    s.wake = at + Cycles(1);
    issue(core, k, local, at);
  }
}

}  // namespace marlin::timing
