#include "sim/runtime/threadgroup_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <utility>

#include "sim/runtime/collective_match.h"
#include "sim/runtime/diagnostic_text.h"

// The kernel's count_alu() increments LaneContext::alu one counter at a time; reading the
// counters back with one wide vector load right after stalls on store-to-load forwarding
// (as long as the rest of the arrival path), so this file's loops stay scalar.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

namespace marlin::sim {

using detail::op_class_of;
using detail::same_call;
using detail::same_site;
using detail::site_text;
using detail::xyz;

namespace {

// Program order of two collective sites, approximated by their source position: the file
// name, then line and column. Deterministic; exact for structured control flow in one
// function (docs/engine.md, "Divergent collectives", lists the limits).
bool site_before(const std::source_location& a, const std::source_location& b) {
  if (a.file_name() != b.file_name()) {
    const int c = std::strcmp(a.file_name(), b.file_name());
    if (c != 0) return c < 0;
  }
  if (a.line() != b.line()) return a.line() < b.line();
  return a.column() < b.column();
}

}  // namespace

void arena_regions(const LaunchPlan& plan, std::byte* arena, std::vector<Region>& decls,
                   std::vector<Region>& args) {
  const auto& declared = plan.kernel->threadgroup_decls;
  decls.resize(declared.size());
  for (std::size_t i = 0; i < declared.size(); ++i) {
    Region& r = decls[i];
    r.base = arena + plan.decl_offsets[i];
    r.bytes = declared[i].bytes;
    r.arena_offset = plan.decl_offsets[i];
    r.buffer_id = kThreadgroupBufferId;
    r.space = Space::kThreadgroup;
    r.name = declared[i].name;
  }
  args.resize(plan.arg_offsets.size());
  for (std::size_t i = 0; i < plan.arg_offsets.size(); ++i) {
    Region& r = args[i];
    r.base = arena + plan.arg_offsets[i];
    r.bytes = plan.arg_bytes[i];
    r.arena_offset = plan.arg_offsets[i];
    r.buffer_id = kThreadgroupBufferId;
    r.space = Space::kThreadgroup;
    r.name = "threadgroup argument";
    for (const KernelParam& p : plan.kernel->params) {
      if (p.kind == ParamKind::kThreadgroup && p.index == i) r.name = p.name;
    }
  }
}

ThreadgroupRun::ThreadgroupRun(const LaunchPlan& plan, WorkerState& worker,
                               std::uint32_t linear_index, ThreadgroupOutput& out,
                               ThreadgroupRole role)
    : plan_(plan), worker_(worker), out_(out) {
  const LaunchSpec& spec = *plan.spec;
  const Dim3& g = spec.threadgroups;
  position_ = threadgroup_position(linear_index, g);
  const bool own = role == ThreadgroupRole::kOwn;
  tracing_ = spec.options.trace && own;
  checking_ = spec.options.check_threadgroup_memory;
  fibers_ = plan.kernel->synchronizes;

  // Threadgroup memory: a zeroed arena (Metal leaves it undefined; the sanitizer reports
  // reads before writes) with one region per declaration and per argument.
  worker_.arena.assign(plan.arena_bytes, std::byte{0});
  arena_regions(plan, worker_.arena.data(), decl_regions_, arg_regions_);
  if (checking_) worker_.shadow.begin_threadgroup(plan.arena_bytes);

  const Dim3& t = spec.threads_per_threadgroup;
  lanes_.resize(plan.threads);
  runs_.resize(plan.threads);
  for (std::uint32_t i = 0; i < plan.threads && i < worker_.lane_events.size(); ++i) {
    runs_[i].events = std::move(worker_.lane_events[i]);
    runs_[i].events.clear();
  }
  for (std::uint32_t i = 0; i < plan.threads; ++i) {
    LaneContext& l = lanes_[i];
    l.thread_in_threadgroup = {i % t.x, (i / t.x) % t.y, i / (t.x * t.y)};
    l.threadgroup_in_grid = position_;
    for (int d = 0; d < 3; ++d) {
      l.thread_in_grid[d] = position_[d] * (&t.x)[d] + l.thread_in_threadgroup[d];
    }
    l.threads_per_threadgroup = {t.x, t.y, t.z};
    l.threadgroups_per_grid = {g.x, g.y, g.z};
    l.linear_id = i;
    l.simdgroup = i / kSimdWidth;
    l.lane = i % kSimdWidth;
    l.simdgroups_per_threadgroup = plan.simdgroups;
    l.counting = own;
    l.threadgroup = this;
  }
  simds_.resize(plan.simdgroups);
  if (tracing_) out_.traces.resize(plan.simdgroups);
  for (std::uint32_t s = 0; s < plan.simdgroups; ++s) {
    SimdgroupRun& sg = simds_[s];
    sg.index = s;
    sg.first_lane = s * kSimdWidth;
    sg.lane_count = std::min(kSimdWidth, plan.threads - sg.first_lane);
    if (s < worker_.deferred_logs.size()) sg.deferred = std::move(worker_.deferred_logs[s]);
    sg.deferred.count = 0;  // a threadgroup that stopped early may have left some
    sg.deferred.alu_work.clear();
    sg.deferred.first_load = DeferredMatrixLog::kNoLoad;
    if (tracing_) {
      out_.traces[s].threadgroup = position_;
      out_.traces[s].simdgroup = s;
      if (s < worker_.spare_traces.size()) {
        out_.traces[s].ops = std::move(worker_.spare_traces[s].ops);
        out_.traces[s].accesses = std::move(worker_.spare_traces[s].accesses);
        out_.traces[s].ops.clear();
        out_.traces[s].accesses.clear();
      }
      if (worker_.trace_sizes_plan == &plan && worker_.trace_sizes_kernel == plan.kernel &&
          s < worker_.trace_sizes.size()) {
        out_.traces[s].ops.reserve(worker_.trace_sizes[s].first);
        out_.traces[s].accesses.reserve(worker_.trace_sizes[s].second);
      }
      sg.trace = &out_.traces[s];
      sg.builder = SimdTraceBuilder(sg.trace);
    }
    for (std::uint32_t l = 0; l < sg.lane_count; ++l) lanes_[sg.first_lane + l].simd = &sg;
    if (checking_) sg.sync_epoch = worker_.shadow.next_simd_epoch();
  }
  out_.stats.threadgroups = 1;
  out_.stats.threads = plan.threads;
}

ThreadgroupRun::~ThreadgroupRun() {
  if (worker_.deferred_logs.size() < simds_.size()) worker_.deferred_logs.resize(simds_.size());
  for (std::size_t s = 0; s < simds_.size(); ++s) {
    worker_.deferred_logs[s] = std::move(simds_[s].deferred);
  }
  if (worker_.lane_events.size() < runs_.size()) worker_.lane_events.resize(runs_.size());
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    worker_.lane_events[i] = std::move(runs_[i].events);
  }
  if (tracing_) {
    worker_.trace_sizes_plan = &plan_;
    worker_.trace_sizes_kernel = plan_.kernel;
    worker_.trace_sizes.resize(out_.traces.size());
    for (std::size_t s = 0; s < out_.traces.size(); ++s) {
      worker_.trace_sizes[s] = {out_.traces[s].ops.size(), out_.traces[s].accesses.size()};
    }
  }
  // Suspended fibers unwind when destroyed; their destructors must not touch lanes.
  current_lane = nullptr;
  runs_.clear();
}

void ThreadgroupRun::run() {
  if (fibers_) {
    run_fibers();
  } else {
    run_plain_loop();
  }
  current_lane = nullptr;
  if (fibers_) {
    // Finished lanes already returned their stacks; destroying a suspended lane's fiber
    // (after an abort) unwinds it and returns its stack.
    for (LaneRun& r : runs_) r.fiber = boost::context::fiber{};
    if (worker_.stacks.take_overflow()) {
      Diagnostic d = make_diagnostic(DiagnosticKind::kKernelError, nullptr);
      d.message = fmt::format(
          "kernel '{}': a thread of threadgroup {} overflowed its {}-byte fiber stack; raise "
          "LaunchOptions::fiber_stack_bytes",
          plan_.kernel->name, xyz(position_), worker_.stacks.stack_bytes());
      report(std::move(d));
      aborted_ = true;
    }
  }
  if (!aborted_) {
    for (SimdgroupRun& sg : simds_) {
      perform_deferred(sg, sg.deferred.count);
      if (aborted_) return;
      merge_events(sg);
    }
  }
}

void ThreadgroupRun::run_lane_body(std::uint32_t index) {
  BindContext ctx{&lanes_[index], &plan_.buffers, &plan_.constant_buffers, &arg_regions_};
  try {
    plan_.kernel->entry(ctx);
  } catch (const LaneAbort&) {
    aborted_ = true;
  } catch (const boost::context::detail::forced_unwind&) {
    throw;
  } catch (const std::exception& e) {
    Diagnostic d = make_diagnostic(DiagnosticKind::kKernelError, &lanes_[index]);
    d.message = fmt::format("kernel '{}': {} (thread {} of threadgroup {})", plan_.kernel->name,
                            e.what(), xyz(lanes_[index].thread_in_threadgroup), xyz(position_));
    report(std::move(d));
    aborted_ = true;
  }
  flush_alu(lanes_[index]);
}

void ThreadgroupRun::run_plain_loop() {
  out_.stats.threadgroups_as_plain_loop = 1;
  for (std::uint32_t i = 0; i < plan_.threads && !aborted_; ++i) {
    current_lane = &lanes_[i];
    run_lane_body(i);
    runs_[i].wait = WaitState::kDone;
  }
}

// Lanes hand control directly to the next runnable lane of the round (one switch per lane
// instead of two through the scheduler); the last one returns to the scheduler. `from_`
// names the context that is switching, so the resumed side can file the continuation it
// receives: the scheduler's in scheduler_, a lane's in its LaneRun.
std::uint32_t ThreadgroupRun::next_runnable(std::uint32_t after) const {
  if (aborted_) return kScheduler;
  for (std::uint32_t i = after + 1; i < plan_.threads; ++i) {
    if (runs_[i].wait == WaitState::kRunnable) return i;
  }
  return kScheduler;
}

void ThreadgroupRun::file_continuation(boost::context::fiber&& from) {
  if (from_ == kScheduler) {
    scheduler_ = std::move(from);
  } else {
    runs_[from_].fiber = std::move(from);
  }
}

boost::context::fiber ThreadgroupRun::take_target(std::uint32_t self, std::uint32_t target) {
  from_ = self;
  if (target == kScheduler) {
    current_lane = nullptr;
    return std::move(scheduler_);
  }
  ++out_.stats.fiber_resumes;
  current_lane = &lanes_[target];
  return std::move(runs_[target].fiber);
}

void ThreadgroupRun::run_round() {
  const std::uint32_t first = next_runnable(kScheduler);  // kScheduler + 1 wraps to lane 0
  if (first == kScheduler) return;
  boost::context::fiber target = take_target(kScheduler, first);
  file_continuation(std::move(target).resume());
  current_lane = nullptr;
}

void ThreadgroupRun::yield(LaneContext& lane) {
  const std::uint32_t self = lane.linear_id;
  boost::context::fiber target = take_target(self, next_runnable(self));
  file_continuation(std::move(target).resume());
  current_lane = &lane;
}

void ThreadgroupRun::run_fibers() {
  for (std::uint32_t i = 0; i < plan_.threads; ++i) {
    runs_[i].fiber = boost::context::fiber(std::allocator_arg, PooledStack(&worker_.stacks),
                                           [this, i](boost::context::fiber&& from) {
                                             file_continuation(std::move(from));
                                             current_lane = &lanes_[i];
                                             run_lane_body(i);
                                             runs_[i].wait = WaitState::kDone;
                                             lanes_[i].simd->done |= 1u << lanes_[i].lane;
                                             ++done_threads_;
                                             return take_target(i, next_runnable(i));
                                           });
  }
  while (!aborted_) {
    run_round();
    if (aborted_) break;
    if (done_threads_ == plan_.threads) break;
    bool progress = false;
    for (SimdgroupRun& sg : simds_) {
      progress = resolve_simdgroup(sg) || progress;
      if (aborted_) return;
    }
    if (!progress) progress = release_barrier();
    if (aborted_) return;
    if (!progress) {
      report_stuck();
      return;
    }
  }
}

bool ThreadgroupRun::resolve_simdgroup(SimdgroupRun& sg) {
  // After a round no lane is runnable: every lane waits at a collective or a threadgroup
  // barrier, or has returned. Lanes at collectives form groups by call site; the group at
  // the site first in program order runs now, with the mask of its lanes (Metal's active
  // lanes). Lanes at a threadgroup barrier simply keep waiting.
  if (release_load_waiters(sg)) return true;
  if (aborted_) return false;
  const std::uint32_t waiting = sg.at_collective;
  if (waiting == 0) return false;
  const LaneRun* runs = &runs_[sg.first_lane];
  std::uint32_t group = waiting;
  auto leader = static_cast<std::uint32_t>(std::countr_zero(waiting));
  if ((waiting & ~sg.same_call) != 0) {
    // Several sites (or lanes that disagree at one site): the earliest site's lanes.
    for (std::uint32_t rest = waiting & (waiting - 1); rest != 0; rest &= rest - 1) {
      const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
      if (site_before(runs[l].call->site, runs[leader].call->site)) leader = l;
    }
    group = 0;
    for (std::uint32_t rest = waiting; rest != 0; rest &= rest - 1) {
      const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
      if (same_site(runs[l].call->site, runs[leader].call->site)) group |= 1u << l;
    }
    leader = static_cast<std::uint32_t>(std::countr_zero(group));
    // The lanes of the group must agree on the operation and its operands.
    const CollectiveCall& lead = *runs[leader].call;
    for (std::uint32_t rest = group & (group - 1); rest != 0; rest &= rest - 1) {
      const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
      if (same_call(*runs[l].call, lead)) continue;
      Diagnostic d =
          make_diagnostic(DiagnosticKind::kBarrierDivergence, &lanes_[sg.first_lane + l]);
      d.other_thread = lanes_[sg.first_lane + leader].thread_in_threadgroup;
      d.message = fmt::format(
          "kernel '{}': simdgroup divergence in threadgroup {}, simdgroup {}: threads {} and "
          "{} reach the collective at {} with different operands",
          plan_.kernel->name, xyz(position_), sg.index, xyz(d.other_thread), xyz(d.thread),
          site_text(lead.site));
      report(std::move(d));
      aborted_ = true;
      return false;
    }
  }
  const CollectiveCall& call = *runs[leader].call;
  // Matrix ops the group's lanes went past come first.
  perform_deferred(sg, deferred_reached_by(sg, group));
  if (aborted_) return false;

  // Lanes that returned executed their pending work before this point; lanes waiting
  // elsewhere keep theirs for a later merge.
  merge_events(sg, group | sg.done);
  sg.exchange.active_mask = group;
  sg.exchange.op = call.op;
  sg.op_accesses.clear();
  if (checking_) sg.sync_epoch = worker_.shadow.next_simd_epoch();
  LaneContext& performer = lanes_[sg.first_lane + leader];
  try {
    current_lane = &performer;
    call.apply(sg.exchange, sg, performer);
    current_lane = nullptr;
  } catch (const LaneAbort&) {
    current_lane = nullptr;
    aborted_ = true;
    return false;
  }
  if (checking_) sg.sync_epoch = worker_.shadow.next_simd_epoch();
  std::int32_t index = -1;
  if (tracing_) {
    std::int32_t producer = -1;
    for (std::uint32_t rest = group; rest != 0; rest &= rest - 1) {
      producer = std::max(producer, runs[std::countr_zero(rest)].call->operand_producer);
    }
    index = sg.builder.append_sync(op_class_of(call.sync_class), call.trace_kind, group,
                                   sg.op_accesses, call.matrix_reads, call.matrix_write, producer);
  }
  for (std::uint32_t rest = group; rest != 0; rest &= rest - 1) {
    const auto l = sg.first_lane + static_cast<std::uint32_t>(std::countr_zero(rest));
    runs_[l].wait = WaitState::kRunnable;
    lanes_[l].last_collective = index;
  }
  sg.at_collective &= ~group;
  // The lanes still waiting elsewhere become the new reference for arrivals.
  sg.ref_call = nullptr;
  sg.same_call = 0;
  if (sg.at_collective != 0) {
    const auto first = static_cast<std::uint32_t>(std::countr_zero(sg.at_collective));
    sg.ref_call = runs[first].call;
    for (std::uint32_t rest = sg.at_collective; rest != 0; rest &= rest - 1) {
      const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
      if (same_call(*runs[l].call, *sg.ref_call)) sg.same_call |= 1u << l;
    }
  }
  return true;
}

bool ThreadgroupRun::release_barrier() {
  std::uint32_t done = 0;
  std::uint32_t first_waiting = plan_.threads;
  for (std::uint32_t i = 0; i < plan_.threads; ++i) {
    const WaitState w = runs_[i].wait;
    if (w == WaitState::kDone) {
      ++done;
    } else if (w != WaitState::kThreadgroup) {
      return false;
    } else if (first_waiting == plan_.threads) {
      first_waiting = i;
    }
  }
  if (first_waiting == plan_.threads) return false;
  const LaneRun& lead = runs_[first_waiting];
  for (std::uint32_t i = 0; i < plan_.threads; ++i) {
    const LaneRun& r = runs_[i];
    if (r.wait == WaitState::kThreadgroup && !same_site(r.site, lead.site)) {
      Diagnostic d = make_diagnostic(DiagnosticKind::kBarrierDivergence, &lanes_[i]);
      d.other_thread = lanes_[first_waiting].thread_in_threadgroup;
      d.message = fmt::format(
          "kernel '{}': barrier divergence in threadgroup {}: thread {} waits at the "
          "threadgroup_barrier at {} but thread {} waits at the one at {}",
          plan_.kernel->name, xyz(position_), xyz(d.other_thread), site_text(lead.site),
          xyz(d.thread), site_text(r.site));
      report(std::move(d));
      aborted_ = true;
      return false;
    }
  }
  if (done > 0) {
    std::uint32_t exited = 0;
    while (runs_[exited].wait != WaitState::kDone) ++exited;
    Diagnostic d = make_diagnostic(DiagnosticKind::kBarrierDivergence, &lanes_[exited]);
    d.other_thread = lanes_[first_waiting].thread_in_threadgroup;
    d.message = fmt::format(
        "kernel '{}': barrier divergence in threadgroup {}: {} threads (first {}) wait at the "
        "threadgroup_barrier at {} but {} threads (first {}) returned without reaching it",
        plan_.kernel->name, xyz(position_), plan_.threads - done, xyz(d.other_thread),
        site_text(lead.site), done, xyz(d.thread));
    report(std::move(d));
    aborted_ = true;
    return false;
  }
  for (SimdgroupRun& sg : simds_) {
    perform_deferred(sg, sg.deferred.count);
    if (aborted_) return false;
    merge_events(sg);
    if (tracing_) {
      sg.builder.append_sync(OpClass::kThreadgroupBarrier,
                             static_cast<std::uint8_t>(lead.barrier_flags),
                             sg.lane_count == 32 ? 0xFFFFFFFFu : (1u << sg.lane_count) - 1, {});
    }
  }
  if (checking_) worker_.shadow.barrier();
  for (LaneRun& r : runs_) r.wait = WaitState::kRunnable;
  for (SimdgroupRun& sg : simds_) sg.at_barrier = 0;
  return true;
}

void ThreadgroupRun::report_stuck() {
  // Defensive: collectives always resolve (possibly with a partial mask) and barrier
  // mismatches are reported by release_barrier, so no state should get here.
  std::uint32_t who = 0;
  while (who + 1 < plan_.threads && runs_[who].wait == WaitState::kDone) ++who;
  Diagnostic d = make_diagnostic(DiagnosticKind::kBarrierDivergence, &lanes_[who]);
  d.message = fmt::format(
      "kernel '{}': barrier divergence in threadgroup {}: thread {} waits at {} and can never "
      "be released",
      plan_.kernel->name, xyz(position_), xyz(d.thread), site_text(runs_[who].site));
  report(std::move(d));
  aborted_ = true;
}

// ---- hooks --------------------------------------------------------------------------------

// The shim's entry points for barriers and collectives (lane_context.h) live here, next to
// the code they call, so the compiler can inline the arrival path into them.
const std::byte* simd_collective(const CollectiveCall& call, const void* operand,
                                 std::size_t operand_bytes, std::uint32_t param) {
  LaneContext* lane = current_lane;
  if (lane == nullptr) throw std::logic_error("simdgroup collective called outside a kernel");
  return lane->threadgroup->collective(*lane, call, operand, operand_bytes, param);
}

void threadgroup_barrier_wait(std::uint32_t mem_flags, std::source_location site) {
  LaneContext* lane = current_lane;
  if (lane == nullptr) throw std::logic_error("threadgroup_barrier called outside a kernel");
  lane->threadgroup->barrier(*lane, mem_flags, site);
}

const std::byte* ThreadgroupRun::collective(LaneContext& lane, const CollectiveCall& call,
                                            const void* operand, std::size_t operand_bytes,
                                            std::uint32_t param) {
  if (!fibers_) unseen_sync(lane, "simdgroup collective", call.site);
  if (deferrable(call)) {
    defer_matrix_op(lane, call);
    return nullptr;
  }
  SimdgroupRun& sg = *lane.simd;
  if (operand_bytes > 0) std::memcpy(sg.exchange.in[lane.lane].data(), operand, operand_bytes);
  sg.exchange.param[lane.lane] = param;
  LaneRun& run = runs_[lane.linear_id];
  run.call = &call;  // lives in the waiting lane's frame until it resumes
  run.site = call.site;
  run.wait = WaitState::kSimd;
  const std::uint32_t bit = 1u << lane.lane;
  sg.at_collective |= bit;
  if (sg.ref_call == nullptr) {
    sg.ref_call = &call;
    sg.same_call |= bit;
  } else if (same_call(call, *sg.ref_call)) {
    sg.same_call |= bit;
  }
  note_arrival(sg, lane);
  yield(lane);
  return sg.exchange.out[lane.lane].data();
}

void ThreadgroupRun::barrier(LaneContext& lane, std::uint32_t flags, std::source_location site) {
  if (!fibers_) unseen_sync(lane, "threadgroup_barrier", site);
  LaneRun& run = runs_[lane.linear_id];
  run.barrier_flags = flags;
  run.site = site;
  run.wait = WaitState::kThreadgroup;
  lane.simd->at_barrier |= 1u << lane.lane;
  note_arrival(*lane.simd, lane);
  yield(lane);
}

void ThreadgroupRun::unseen_sync(LaneContext& lane, const char* what, std::source_location site) {
  Diagnostic d = make_diagnostic(DiagnosticKind::kKernelError, &lane);
  d.message = fmt::format(
      "kernel '{}': reached a {} at {} that the pre-pass did not see (hidden behind a macro?)",
      plan_.kernel->name, what, site_text(site));
  fatal(std::move(d));
}

const Region& ThreadgroupRun::decl_region(std::uint32_t index) {
  if (index >= decl_regions_.size()) {
    throw std::logic_error("threadgroup declaration index out of range");
  }
  return decl_regions_[index];
}

MatrixStorage& ThreadgroupRun::matrix(SimdgroupRun& simd, std::uint32_t slot) {
  if (slot >= simd.matrices.size()) simd.matrices.resize(slot + 1);
  return simd.matrices[slot];
}

void ThreadgroupRun::flush_alu(LaneContext& lane) {
  if (!lane.counting) return;  // a copy: nothing counted, no segments to tell apart
  flush_counts(lane.alu, runs_[lane.linear_id].events);
  ++lane.segment;
}

void ThreadgroupRun::flush_counts(AluWork& work, std::vector<LaneEvent>& events) {
  // One event per kind with work (or per 65535 instructions), in AluKind order; each kind's
  // counters are cleared as they are read (what AluWork::clear() does).
  auto& lane_ops = out_.stats.alu_lane_ops;
  const bool tracing = tracing_;
  const std::int32_t producer = work.producer;
  for (std::uint32_t kinds = work.kinds; kinds != 0; kinds &= kinds - 1) {
    const auto k = static_cast<std::size_t>(std::countr_zero(kinds));
    const std::uint32_t count = work.count[k];
    const std::uint32_t chain = work.chain[k];
    work.count[k] = 0;
    work.chain[k] = 0;
    lane_ops[k] += count;
    if (!tracing) continue;
    const auto kind = static_cast<AluKind>(k);
    if (count <= 0xFFFFu) {  // one event, the common case (no callback on the hot path)
      events.push_back(LaneEvent::alu(kind, static_cast<std::uint16_t>(count),
                                      static_cast<std::uint16_t>(std::min(chain, count)),
                                      producer));
      continue;
    }
    for_each_alu_chunk(count, chain, [&](std::uint16_t n, std::uint16_t c) {
      events.push_back(LaneEvent::alu(kind, n, c, producer));
    });
  }
  work.kinds = 0;
  work.producer = -1;
}

void ThreadgroupRun::note_arrival(SimdgroupRun& sg, LaneContext& lane) {
  if (!runs_[lane.linear_id].events.empty()) return;
  const std::uint32_t bit = 1u << lane.lane;
  if (!has_alu_work(lane.alu)) {
    sg.alu_idle |= bit;
    return;
  }
  if (sg.alu_same == 0) {
    sg.alu_work = lane.alu;
  } else if (!same_alu_work(lane.alu, sg.alu_work)) {
    return;
  }
  sg.alu_same |= bit;
  clear_alu(lane);
}

void ThreadgroupRun::restore_alu(SimdgroupRun& sg, std::uint32_t lanes_mask) {
  for (std::uint32_t rest = sg.alu_same & lanes_mask; rest != 0; rest &= rest - 1) {
    lanes_[sg.first_lane + static_cast<std::uint32_t>(std::countr_zero(rest))].alu = sg.alu_work;
  }
  sg.alu_same &= ~lanes_mask;
}

bool ThreadgroupRun::merge_uniform_alu(SimdgroupRun& sg, std::uint32_t lanes_mask) {
  // The common case between two synchronizations of uniform code (loop control, index
  // arithmetic): no lane has memory events pending and every lane with ALU work has the
  // same work. merge() would turn each kind's count into one op with those lanes' mask;
  // build those ops directly. Lanes recorded on arrival are not touched again.
  std::uint32_t with_work = sg.alu_same & lanes_mask;
  AluWork work = sg.alu_work;
  std::uint32_t fresh = 0;  // lanes whose counters are cleared here
  for (std::uint32_t rest = lanes_mask & ~(sg.alu_same | sg.alu_idle); rest != 0;
       rest &= rest - 1) {
    const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
    if (!runs_[sg.first_lane + l].events.empty()) return false;
    const LaneContext& lane = lanes_[sg.first_lane + l];
    if (!has_alu_work(lane.alu)) continue;
    if (with_work == 0) {
      work = lane.alu;
    } else if (!same_alu_work(lane.alu, work)) {
      return false;
    }
    with_work |= 1u << l;
    fresh |= 1u << l;
  }
  append_uniform_alu(sg, work, with_work);
  for (std::uint32_t rest = fresh; rest != 0; rest &= rest - 1) {
    clear_alu(lanes_[sg.first_lane + static_cast<std::uint32_t>(std::countr_zero(rest))]);
  }
  sg.alu_same &= ~lanes_mask;
  sg.alu_idle &= ~lanes_mask;
  return true;
}

void ThreadgroupRun::append_uniform_alu(SimdgroupRun& sg, const AluWork& work,
                                        std::uint32_t lanes_mask) {
  const auto lanes = static_cast<std::uint64_t>(std::popcount(lanes_mask));
  if (lanes == 0) return;
  for (std::uint32_t kinds = work.kinds; kinds != 0; kinds &= kinds - 1) {
    const auto k = static_cast<std::size_t>(std::countr_zero(kinds));
    out_.stats.alu_lane_ops[k] += work.count[k] * lanes;
    if (!tracing_) continue;
    for_each_alu_chunk(work.count[k], work.chain[k], [&](std::uint16_t count, std::uint16_t chain) {
      sg.builder.append_alu(static_cast<AluKind>(k), count, lanes_mask, chain, work.producer);
    });
  }
}

void ThreadgroupRun::merge_events(SimdgroupRun& sg, std::uint32_t lanes_mask) {
  lanes_mask &= sg.lane_count == kSimdWidth ? 0xFFFFFFFFu : (1u << sg.lane_count) - 1;
  if (merge_uniform_alu(sg, lanes_mask)) return;
  restore_alu(sg, lanes_mask);
  sg.alu_idle &= ~lanes_mask;
  bool any = false;
  std::array<std::vector<LaneEvent>*, kSimdWidth> lanes{};
  for (std::uint32_t rest = lanes_mask; rest != 0; rest &= rest - 1) {
    const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
    flush_alu(lanes_[sg.first_lane + l]);
    std::vector<LaneEvent>& events = runs_[sg.first_lane + l].events;
    any = any || !events.empty();
    lanes[l] = &events;
  }
  if (!tracing_ || !any) return;
  sg.builder.merge(lanes);
}

Diagnostic ThreadgroupRun::make_diagnostic(DiagnosticKind kind, const LaneContext* lane) const {
  Diagnostic d;
  d.kind = kind;
  d.kernel = plan_.kernel->name;
  d.threadgroup = position_;
  if (lane != nullptr) d.thread = lane->thread_in_threadgroup;
  return d;
}

void ThreadgroupRun::report(Diagnostic d) {
  if (out_.diagnostics.size() < plan_.spec->options.max_diagnostics) {
    out_.diagnostics.push_back(std::move(d));
  } else {
    ++out_.diagnostics_dropped;
  }
}

void ThreadgroupRun::fatal(Diagnostic d) {
  report(std::move(d));
  aborted_ = true;
  throw LaneAbort{};
}

}  // namespace marlin::sim
