// Matrix multiplies, fills, copies and loads without waiting (DeferredMatrixOp): lanes record
// or check their arrival and go on; each op runs once, in program order, just before the
// synchronizing op that follows it, or once the lanes past a pending load wait to access
// memory.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "sim/runtime/collective_match.h"
#include "sim/runtime/diagnostic_text.h"
#include "sim/runtime/threadgroup_run.h"

// As in threadgroup_run.cpp: the lane's ALU counters are read right after the kernel wrote
// them one at a time, so a wide load would stall on store-to-load forwarding.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

namespace marlin::sim {

using detail::site_text;
using detail::xyz;

bool ThreadgroupRun::deferrable(const CollectiveCall& call) {
  const SyncClass c = call.sync_class;
  return (c == SyncClass::kMatrixMultiply || c == SyncClass::kMatrixFill ||
          c == SyncClass::kMatrixCopy || c == SyncClass::kMatrixLoad) &&
         call.op_bytes <= DeferredMatrixOp::kMaxOpBytes;
}

void ThreadgroupRun::report_matrix_divergence(LaneContext& lane, std::source_location site,
                                              const DeferredMatrixOp& op, bool same_site) {
  const SimdgroupRun& sg = *lane.simd;
  Diagnostic d = make_diagnostic(DiagnosticKind::kBarrierDivergence, &lane);
  d.other_thread = lanes_[sg.first_lane + static_cast<std::uint32_t>(std::countr_zero(op.lanes))]
                       .thread_in_threadgroup;
  d.message =
      same_site
          ? fmt::format(
                "kernel '{}': simdgroup divergence in threadgroup {}, simdgroup {}: threads {} "
                "and {} reach the simdgroup matrix operation at {} with different operands",
                plan_.kernel->name, xyz(position_), sg.index, xyz(d.other_thread), xyz(d.thread),
                site_text(site))
          : fmt::format(
                "kernel '{}': simdgroup divergence in threadgroup {}, simdgroup {}: thread {} "
                "reaches the simdgroup matrix operation at {} where thread {} reached the one at "
                "{}",
                plan_.kernel->name, xyz(position_), sg.index, xyz(d.thread), site_text(site),
                xyz(d.other_thread), site_text(op.site));
  fatal(std::move(d));
}

void ThreadgroupRun::defer_matrix_op(LaneContext& lane, const CollectiveCall& call) {
  DeferredMatrixLog& log = lane.simd->deferred;
  LaneRun& run = runs_[lane.linear_id];
  const std::uint32_t bit = 1u << lane.lane;
  const std::uint32_t index = run.deferred_reached++;
  if (index == log.count) {
    if (log.ops.size() == index) {
      log.ops.emplace_back();
      log.details.emplace_back();
    }
    DeferredMatrixOp& op = log.ops[index];
    op.apply = call.apply;
    op.site = call.site;
    std::memcpy(op.op.data(), call.op, call.op_bytes);
    op.lanes = op.alu_idle = op.alu_same = op.slow = 0;
    op.matrix_write = call.matrix_write;
    op.op_bytes = static_cast<std::uint8_t>(call.op_bytes);
    op.sync_class = call.sync_class;
    op.trace_kind = call.trace_kind;
    log.details[index].matrix_reads = call.matrix_reads;
    if (call.sync_class == SyncClass::kMatrixLoad && log.first_load == DeferredMatrixLog::kNoLoad) {
      log.first_load = index;
    }
    ++log.count;
  } else {
    const DeferredMatrixOp& op = log.ops[index];
    const bool same_site = detail::same_site(call.site, op.site);
    if (!same_site || call.apply != op.apply || call.op_bytes != op.op_bytes ||
        !detail::same_bytes(call.op, op.op.data(), call.op_bytes)) {
      report_matrix_divergence(lane, call.site, op, same_site);
    }
  }
  DeferredMatrixOp& op = log.ops[index];
  op.lanes |= bit;
  // The lane's work since its previous sync or matrix op: the same checks as note_arrival.
  std::vector<LaneEvent>& events = run.events;
  bool fast = events.size() == run.deferred_events_mark;
  if (fast) {
    if (!has_alu_work(lane.alu)) {
      op.alu_idle |= bit;
    } else if (op.alu_same == 0) {
      // Loop control repeats: name the previous op's work when it is the same.
      if (log.alu_work.empty() || !same_alu_work(lane.alu, log.alu_work.back())) {
        log.alu_work.push_back(lane.alu);
      }
      op.work_index = static_cast<std::uint32_t>(log.alu_work.size() - 1);
      op.alu_same |= bit;
      clear_alu(lane);
    } else {
      fast = same_alu_work(lane.alu, log.alu_work[op.work_index]);
      if (fast) {
        op.alu_same |= bit;
        clear_alu(lane);
      }
    }
  }
  if (!fast) {
    flush_alu(lane);
    op.slow |= bit;
    run.deferred_events_mark = static_cast<std::uint32_t>(events.size());
    log.details[index].event_end[lane.lane] = run.deferred_events_mark;
  }
}

void ThreadgroupRun::merge_deferred_segment(SimdgroupRun& sg, std::uint32_t index,
                                            std::array<std::uint32_t, kSimdWidth>& consumed) {
  const DeferredMatrixOp& op = sg.deferred.ops[index];
  // Lanes that returned join with what they did last, at the first op they did not reach
  // (where a synchronizing op would have merged it).
  std::uint32_t leftovers = 0;
  for (std::uint32_t rest = sg.done & ~op.lanes; rest != 0; rest &= rest - 1) {
    const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
    if (runs_[sg.first_lane + l].events.size() > consumed[l]) leftovers |= 1u << l;
  }
  const AluWork work = op.alu_same != 0 ? sg.deferred.alu_work[op.work_index] : AluWork{};
  if (op.slow == 0 && leftovers == 0) {
    append_uniform_alu(sg, work, op.alu_same);  // only the lanes with the same work
    return;
  }
  std::array<std::vector<LaneEvent>*, kSimdWidth> lanes{};
  for (std::uint32_t rest = op.alu_same; rest != 0; rest &= rest - 1) {
    const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
    std::vector<LaneEvent>& segment = worker_.segment_events[l];
    segment.clear();
    AluWork lane_work = work;
    flush_counts(lane_work, segment);
    lanes[l] = &segment;
  }
  const DeferredMatrixOpDetail& detail = sg.deferred.details[index];
  for (std::uint32_t rest = op.slow | leftovers; rest != 0; rest &= rest - 1) {
    const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
    const std::vector<LaneEvent>& events = runs_[sg.first_lane + l].events;
    const std::uint32_t end =
        (op.slow >> l) & 1u ? detail.event_end[l] : static_cast<std::uint32_t>(events.size());
    std::vector<LaneEvent>& segment = worker_.segment_events[l];
    segment.assign(events.begin() + consumed[l], events.begin() + end);
    consumed[l] = end;
    lanes[l] = &segment;
  }
  if (tracing_) sg.builder.merge(lanes);
}

void ThreadgroupRun::perform_deferred(SimdgroupRun& sg, std::uint32_t count) {
  DeferredMatrixLog& log = sg.deferred;
  count = std::min(count, log.count);
  if (count == 0) return;
  std::array<std::uint32_t, kSimdWidth> consumed{};  // events merged, per lane
  for (std::uint32_t i = 0; i < count; ++i) {
    merge_deferred_segment(sg, i, consumed);
    const DeferredMatrixOp& op = log.ops[i];
    LaneContext& performer =
        lanes_[sg.first_lane + static_cast<std::uint32_t>(std::countr_zero(op.lanes))];
    sg.exchange.active_mask = op.lanes;
    sg.exchange.op = op.op.data();
    sg.op_accesses.clear();
    // A load reads memory: for the race sanitizer it separates what the lanes did before it
    // from what they do after, as a collective does.
    const bool load = op.sync_class == SyncClass::kMatrixLoad;
    if (load && checking_) sg.sync_epoch = worker_.shadow.next_simd_epoch();
    try {
      current_lane = &performer;
      op.apply(sg.exchange, sg, performer);
      current_lane = nullptr;
    } catch (const LaneAbort&) {
      current_lane = nullptr;
      aborted_ = true;
      return;
    }
    if (load && checking_) sg.sync_epoch = worker_.shadow.next_simd_epoch();
    if (tracing_) {
      sg.builder.append_sync(detail::op_class_of(op.sync_class), op.trace_kind, op.lanes,
                             sg.op_accesses, log.details[i].matrix_reads, op.matrix_write);
    }
  }
  // Drop what was merged; the ops still pending keep their offsets into what remains.
  for (std::uint32_t l = 0; l < sg.lane_count; ++l) {
    LaneRun& run = runs_[sg.first_lane + l];
    run.deferred_reached -= std::min(run.deferred_reached, count);
    const std::uint32_t drop = consumed[l];
    if (drop == 0) continue;
    run.events.erase(run.events.begin(), run.events.begin() + drop);
    run.deferred_events_mark -= std::min(run.deferred_events_mark, drop);
    for (std::uint32_t i = count; i < log.count; ++i) {
      if ((log.ops[i].slow >> l) & 1u) log.details[i].event_end[l] -= drop;
    }
  }
  std::move(log.ops.begin() + count, log.ops.begin() + log.count, log.ops.begin());
  std::move(log.details.begin() + count, log.details.begin() + log.count, log.details.begin());
  log.count -= count;
  if (log.count == 0) log.alu_work.clear();
  log.first_load = DeferredMatrixLog::kNoLoad;
  for (std::uint32_t i = 0; i < log.count; ++i) {
    if (log.ops[i].sync_class == SyncClass::kMatrixLoad) {
      log.first_load = i;
      break;
    }
  }
}

void ThreadgroupRun::wait_for_loads(LaneContext& lane) {
  runs_[lane.linear_id].wait = WaitState::kMatrixLoad;
  lane.simd->at_load |= 1u << lane.lane;
  yield(lane);
}

bool ThreadgroupRun::release_load_waiters(SimdgroupRun& sg) {
  const std::uint32_t waiting = sg.at_load;
  if (waiting == 0) return false;
  // Lanes at a collective that did not reach the ops the waiters went past are earlier in
  // program order (a divergent branch): their collective resolves first, and they may yet
  // join those ops.
  const std::uint32_t need = deferred_reached_by(sg, waiting);
  for (std::uint32_t rest = sg.at_collective; rest != 0; rest &= rest - 1) {
    const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
    if (runs_[sg.first_lane + l].deferred_reached < need) return false;
  }
  perform_deferred(sg, need);
  if (aborted_) return false;
  for (std::uint32_t rest = waiting; rest != 0; rest &= rest - 1) {
    runs_[sg.first_lane + static_cast<std::uint32_t>(std::countr_zero(rest))].wait =
        WaitState::kRunnable;
  }
  sg.at_load = 0;
  return true;
}

std::uint32_t ThreadgroupRun::deferred_reached_by(const SimdgroupRun& sg,
                                                  std::uint32_t lanes_mask) const {
  std::uint32_t most = 0;
  for (std::uint32_t rest = lanes_mask; rest != 0; rest &= rest - 1) {
    const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
    most = std::max(most, runs_[sg.first_lane + l].deferred_reached);
  }
  return most;
}

}  // namespace marlin::sim
