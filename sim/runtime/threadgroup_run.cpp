#include "sim/runtime/threadgroup_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>
#include <utility>

#include "sim/runtime/diagnostic_text.h"

namespace marlin::sim {

using detail::site_text;
using detail::xyz;

namespace {

OpClass op_class_of(SyncClass c) {
  switch (c) {
    case SyncClass::kShuffle:
      return OpClass::kShuffle;
    case SyncClass::kReduction:
      return OpClass::kReduction;
    case SyncClass::kVote:
      return OpClass::kVote;
    case SyncClass::kSimdBarrier:
      return OpClass::kSimdBarrier;
    case SyncClass::kMatrixLoad:
      return OpClass::kMatrixLoad;
    case SyncClass::kMatrixStore:
      return OpClass::kMatrixStore;
    case SyncClass::kMatrixMultiply:
      return OpClass::kMatrixMultiply;
    case SyncClass::kMatrixFill:
      return OpClass::kMatrixFill;
    case SyncClass::kMatrixCopy:
      return OpClass::kMatrixCopy;
  }
  return OpClass::kShuffle;
}

// Byte equality of two lane-owned operand descriptors (small, so an inline loop beats a
// library call on this hot path).
bool same_bytes(const void* a, const void* b, std::size_t n) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  std::uint64_t diff = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t u = 0;
    std::uint64_t v = 0;
    std::memcpy(&u, x + i, 8);
    std::memcpy(&v, y + i, 8);
    diff |= u ^ v;
  }
  for (; i < n; ++i) diff |= static_cast<std::uint64_t>(x[i] ^ y[i]);
  return diff == 0;
}

bool same_site(const std::source_location& a, const std::source_location& b) {
  return a.line() == b.line() && a.column() == b.column() &&
         (a.file_name() == b.file_name() || std::strcmp(a.file_name(), b.file_name()) == 0);
}

}  // namespace

ThreadgroupRun::ThreadgroupRun(const LaunchPlan& plan, WorkerState& worker,
                               std::uint32_t linear_index, ThreadgroupOutput& out)
    : plan_(plan), worker_(worker), out_(out) {
  const LaunchSpec& spec = *plan.spec;
  const Dim3& g = spec.threadgroups;
  position_ = {linear_index % g.x, (linear_index / g.x) % g.y, linear_index / (g.x * g.y)};
  tracing_ = spec.options.trace;
  checking_ = spec.options.check_threadgroup_memory;
  fibers_ = plan.kernel->synchronizes;

  // Threadgroup memory: a zeroed arena (Metal leaves it undefined; the sanitizer reports
  // reads before writes) with one region per declaration and per argument.
  worker_.arena.assign(plan.arena_bytes, std::byte{0});
  std::byte* arena = worker_.arena.data();
  const auto& decls = plan.kernel->threadgroup_decls;
  decl_regions_.resize(decls.size());
  for (std::size_t i = 0; i < decls.size(); ++i) {
    Region& r = decl_regions_[i];
    r.base = arena + plan.decl_offsets[i];
    r.bytes = decls[i].bytes;
    r.arena_offset = plan.decl_offsets[i];
    r.buffer_id = kThreadgroupBufferId;
    r.space = Space::kThreadgroup;
    r.name = decls[i].name;
  }
  arg_regions_.resize(plan.arg_offsets.size());
  for (std::size_t i = 0; i < plan.arg_offsets.size(); ++i) {
    Region& r = arg_regions_[i];
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
  if (checking_) worker_.shadow.begin_threadgroup(plan.arena_bytes);

  const Dim3& t = spec.threads_per_threadgroup;
  lanes_.resize(plan.threads);
  runs_.resize(plan.threads);
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
    l.threadgroup = this;
  }
  simds_.resize(plan.simdgroups);
  if (tracing_) out_.traces.resize(plan.simdgroups);
  for (std::uint32_t s = 0; s < plan.simdgroups; ++s) {
    SimdgroupRun& sg = simds_[s];
    sg.index = s;
    sg.first_lane = s * kSimdWidth;
    sg.lane_count = std::min(kSimdWidth, plan.threads - sg.first_lane);
    if (tracing_) {
      out_.traces[s].threadgroup = position_;
      out_.traces[s].simdgroup = s;
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
    for (SimdgroupRun& sg : simds_) merge_events(sg);
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
                                             return take_target(i, next_runnable(i));
                                           });
  }
  while (!aborted_) {
    run_round();
    if (aborted_) break;
    bool all_done = true;
    for (const LaneRun& r : runs_) all_done = all_done && r.wait == WaitState::kDone;
    if (all_done) break;
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
  std::uint32_t live = 0;
  std::uint32_t waiting = 0;
  std::uint32_t leader = kSimdWidth;
  for (std::uint32_t l = 0; l < sg.lane_count; ++l) {
    const LaneRun& r = runs_[sg.first_lane + l];
    if (r.wait == WaitState::kDone) continue;
    ++live;
    if (r.wait == WaitState::kSimd) {
      waiting |= 1u << l;
      if (leader == kSimdWidth) leader = l;
    }
  }
  if (live == 0 || static_cast<std::uint32_t>(std::popcount(waiting)) != live) return false;

  const CollectiveCall& call = *runs_[sg.first_lane + leader].call;
  for (std::uint32_t l = leader + 1; l < sg.lane_count; ++l) {
    if (((waiting >> l) & 1u) == 0) continue;
    const CollectiveCall& other = *runs_[sg.first_lane + l].call;
    const bool same = other.apply == call.apply && same_site(other.site, call.site) &&
                      other.op_bytes == call.op_bytes &&
                      (call.op_bytes == 0 || same_bytes(other.op, call.op, call.op_bytes));
    if (!same) {
      Diagnostic d =
          make_diagnostic(DiagnosticKind::kBarrierDivergence, &lanes_[sg.first_lane + l]);
      d.other_thread = lanes_[sg.first_lane + leader].thread_in_threadgroup;
      d.message = fmt::format(
          "kernel '{}': simdgroup divergence in threadgroup {}, simdgroup {}: thread {} is at "
          "the collective at {} but thread {} is at {}{}",
          plan_.kernel->name, xyz(position_), sg.index, xyz(d.other_thread), site_text(call.site),
          xyz(d.thread), site_text(other.site),
          same_site(other.site, call.site) ? " with different operands" : "");
      report(std::move(d));
      aborted_ = true;
      return false;
    }
  }

  merge_events(sg);
  sg.exchange.active_mask = waiting;
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
  if (tracing_) {
    sg.builder.append_sync(op_class_of(call.sync_class), call.trace_kind, waiting, sg.op_accesses,
                           call.matrix_reads, call.matrix_write);
  }
  for (std::uint32_t l = 0; l < sg.lane_count; ++l) {
    if ((waiting >> l) & 1u) runs_[sg.first_lane + l].wait = WaitState::kRunnable;
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
    merge_events(sg);
    if (tracing_) {
      sg.builder.append_sync(OpClass::kThreadgroupBarrier,
                             static_cast<std::uint8_t>(lead.barrier_flags),
                             sg.lane_count == 32 ? 0xFFFFFFFFu : (1u << sg.lane_count) - 1, {});
    }
  }
  if (checking_) worker_.shadow.barrier();
  for (LaneRun& r : runs_) r.wait = WaitState::kRunnable;
  return true;
}

void ThreadgroupRun::report_stuck() {
  // Some threads wait at a threadgroup barrier while others of their simdgroup wait at a
  // collective (or the reverse): nothing can proceed.
  std::uint32_t at_barrier = plan_.threads;
  std::uint32_t at_collective = plan_.threads;
  for (std::uint32_t i = 0; i < plan_.threads; ++i) {
    if (runs_[i].wait == WaitState::kThreadgroup && at_barrier == plan_.threads) at_barrier = i;
    if (runs_[i].wait == WaitState::kSimd && at_collective == plan_.threads) at_collective = i;
  }
  const std::uint32_t who = at_collective < plan_.threads ? at_collective : 0;
  Diagnostic d = make_diagnostic(DiagnosticKind::kBarrierDivergence, &lanes_[who]);
  std::string detail;
  if (at_barrier < plan_.threads && at_collective < plan_.threads) {
    d.other_thread = lanes_[at_barrier].thread_in_threadgroup;
    detail = fmt::format(
        "thread {} waits at the simdgroup collective at {} while thread {} of "
        "the threadgroup waits at the threadgroup_barrier at {}",
        xyz(d.thread), site_text(runs_[who].site), xyz(d.other_thread),
        site_text(runs_[at_barrier].site));
  } else {
    detail = fmt::format("thread {} waits at {} and can never be released", xyz(d.thread),
                         site_text(runs_[who].site));
  }
  d.message = fmt::format("kernel '{}': barrier divergence in threadgroup {}: {}",
                          plan_.kernel->name, xyz(position_), detail);
  report(std::move(d));
  aborted_ = true;
}

// ---- hooks --------------------------------------------------------------------------------

const std::byte* ThreadgroupRun::collective(LaneContext& lane, const CollectiveCall& call,
                                            const void* operand, std::size_t operand_bytes,
                                            std::uint32_t param) {
  if (!fibers_) {
    Diagnostic d = make_diagnostic(DiagnosticKind::kKernelError, &lane);
    d.message = fmt::format(
        "kernel '{}': reached a simdgroup collective at {} that the "
        "pre-pass did not see (hidden behind a macro?)",
        plan_.kernel->name, site_text(call.site));
    fatal(std::move(d));
  }
  SimdgroupRun& sg = *lane.simd;
  if (operand_bytes > 0) std::memcpy(sg.exchange.in[lane.lane].data(), operand, operand_bytes);
  sg.exchange.param[lane.lane] = param;
  LaneRun& run = runs_[lane.linear_id];
  run.call = &call;  // lives in the waiting lane's frame until it resumes
  run.site = call.site;
  run.wait = WaitState::kSimd;
  yield(lane);
  return sg.exchange.out[lane.lane].data();
}

void ThreadgroupRun::barrier(LaneContext& lane, std::uint32_t flags, std::source_location site) {
  if (!fibers_) {
    Diagnostic d = make_diagnostic(DiagnosticKind::kKernelError, &lane);
    d.message = fmt::format(
        "kernel '{}': reached a threadgroup_barrier at {} that the pre-pass "
        "did not see (hidden behind a macro?)",
        plan_.kernel->name, site_text(site));
    fatal(std::move(d));
  }
  LaneRun& run = runs_[lane.linear_id];
  run.barrier_flags = flags;
  run.site = site;
  run.wait = WaitState::kThreadgroup;
  yield(lane);
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
  std::uint32_t any = 0;
  for (std::uint32_t n : lane.alu) any |= n;
  if (any == 0) return;
  for (std::size_t k = 0; k < kAluKindCount; ++k) {
    std::uint32_t n = lane.alu[k];
    if (n == 0) continue;
    lane.alu[k] = 0;
    out_.stats.alu_lane_ops[k] += n;
    if (!tracing_) continue;
    auto& events = runs_[lane.linear_id].events;
    while (n > 0) {
      const std::uint32_t chunk = std::min<std::uint32_t>(n, 0xFFFF);
      LaneEvent e;
      e.op = OpClass::kAlu;
      e.kind = static_cast<std::uint8_t>(k);
      e.count = static_cast<std::uint16_t>(chunk);
      events.push_back(e);
      n -= chunk;
    }
  }
}

void ThreadgroupRun::merge_events(SimdgroupRun& sg) {
  bool any = false;
  for (std::uint32_t l = 0; l < sg.lane_count; ++l) {
    flush_alu(lanes_[sg.first_lane + l]);
    any = any || !runs_[sg.first_lane + l].events.empty();
  }
  if (!tracing_ || !any) return;
  std::array<std::vector<LaneEvent>*, kSimdWidth> lanes{};
  for (std::uint32_t l = 0; l < sg.lane_count; ++l) lanes[l] = &runs_[sg.first_lane + l].events;
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
