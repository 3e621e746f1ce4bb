#include "sim/runtime/batch_run.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <utility>

namespace marlin::sim {

namespace {

bool same_site(const BatchSite& a, const BatchSite& b) {
  return a.line == b.line && a.column == b.column &&
         (a.file == b.file || std::strcmp(a.file, b.file) == 0);
}

BatchSite site_of(const std::source_location& s) { return {s.file_name(), s.line(), s.column()}; }

constexpr std::ptrdiff_t kArenaAlignment = 64;

}  // namespace

BatchRun::BatchRun(const LaunchPlan& plan, WorkerState& worker,
                   std::span<const std::uint32_t> threadgroups, BatchKernelEntry entry)
    : plan_(plan), worker_(worker), entry_(entry) {
  if (threadgroups.empty() || threadgroups.size() > kBatchWidth) {
    throw std::logic_error("a batch holds 1 to kBatchWidth threadgroups");
  }
  const LaunchSpec& spec = *plan.spec;
  const Dim3& g = spec.threadgroups;
  for (std::uint32_t m = 0; m < kBatchWidth; ++m) {
    // Spare places repeat the first member (batch_lane.h).
    const std::uint32_t index = m < threadgroups.size() ? threadgroups[m] : threadgroups[0];
    positions_[m] = threadgroup_position(index, g);
  }

  // One zeroed arena per member, `arena_stride_` bytes apart, laid out as ThreadgroupRun's.
  arena_stride_ = (static_cast<std::ptrdiff_t>(plan.arena_bytes) + kArenaAlignment - 1) /
                  kArenaAlignment * kArenaAlignment;
  // (One byte more, so that an empty arena still has an address.)
  worker_.batch_arena.assign(static_cast<std::size_t>(arena_stride_) * kBatchWidth + 1,
                             std::byte{0});
  arena_regions(plan, worker_.batch_arena.data(), decl_regions_, arg_regions_);

  const Dim3& t = spec.threads_per_threadgroup;
  lanes_.resize(plan.threads);
  runs_.resize(plan.threads);
  simds_.resize(plan.simdgroups);
  for (std::uint32_t s = 0; s < plan.simdgroups; ++s) {
    simds_[s].first_lane = s * kSimdWidth;
    simds_[s].lane_count = std::min(kSimdWidth, plan.threads - s * kSimdWidth);
  }
  for (std::uint32_t i = 0; i < plan.threads; ++i) {
    BatchLane& l = lanes_[i];
    l.thread_in_threadgroup = {i % t.x, (i / t.x) % t.y, i / (t.x * t.y)};
    l.threads_per_threadgroup = {t.x, t.y, t.z};
    l.threadgroups_per_grid = {g.x, g.y, g.z};
    l.threadgroup_in_grid = &positions_;
    l.linear_id = i;
    l.simdgroup = i / kSimdWidth;
    l.lane = i % kSimdWidth;
    l.simdgroups_per_threadgroup = plan.simdgroups;
    l.run = this;
    l.simd = &simds_[l.simdgroup];
  }
}

BatchRun::~BatchRun() {
  // Suspended fibers unwind when destroyed; their destructors must not touch lanes.
  current_batch_lane = nullptr;
  runs_.clear();
}

void BatchRun::stop(const char* reason) {
  if (stop_reason_ == nullptr) stop_reason_ = reason;
}

bool BatchRun::run() {
  if (!plan_.kernel->synchronizes) {
    // Nothing to wait for: each thread runs to its end in turn, on this host thread's stack.
    for (std::uint32_t i = 0; i < plan_.threads && stop_reason_ == nullptr; ++i) {
      current_batch_lane = &lanes_[i];
      run_lane_body(i);
    }
    current_batch_lane = nullptr;
    return stop_reason_ == nullptr;
  }
  for (std::uint32_t i = 0; i < plan_.threads; ++i) {
    runs_[i].fiber = boost::context::fiber(std::allocator_arg, PooledStack(&worker_.stacks),
                                           [this, i](boost::context::fiber&& from) {
                                             file_continuation(std::move(from));
                                             current_batch_lane = &lanes_[i];
                                             run_lane_body(i);
                                             runs_[i].wait = Wait::kDone;
                                             lanes_[i].simd->done |= 1u << lanes_[i].lane;
                                             ++done_threads_;
                                             return take_target(i, next_runnable(i));
                                           });
  }
  while (stop_reason_ == nullptr) {
    const std::uint32_t first = next_runnable(kScheduler);
    if (first != kScheduler) {
      boost::context::fiber target = take_target(kScheduler, first);
      file_continuation(std::move(target).resume());
      current_batch_lane = nullptr;
    }
    if (stop_reason_ != nullptr || done_threads_ == plan_.threads) break;
    bool progress = false;
    for (BatchSimdgroup& simd : simds_) {
      progress = resolve_simdgroup(simd) || progress;
      if (stop_reason_ != nullptr) break;
    }
    if (stop_reason_ != nullptr) break;
    if (!progress && !release_barrier()) {
      stop("the threads wait at different places");
    }
  }
  current_batch_lane = nullptr;
  for (LaneRun& r : runs_) r.fiber = boost::context::fiber{};
  if (worker_.stacks.take_overflow()) stop("a thread overflowed its fiber stack");
  return stop_reason_ == nullptr;
}

void BatchRun::run_lane_body(std::uint32_t index) {
  BatchBindContext ctx{&lanes_[index], &plan_.buffers, &plan_.constant_buffers, &arg_regions_,
                       arena_stride_};
  try {
    entry_(ctx);
  } catch (const BatchAbort& a) {
    stop(a.reason);
  } catch (const boost::context::detail::forced_unwind&) {
    throw;
  } catch (const std::exception&) {
    stop("the kernel failed");  // the threadgroups run alone report it
  }
}

// Lanes hand control directly to the next runnable lane of the round, the last one back to
// the scheduler, as in ThreadgroupRun; `from_` names the context that switched.
std::uint32_t BatchRun::next_runnable(std::uint32_t after) const {
  if (stop_reason_ != nullptr) return kScheduler;
  for (std::uint32_t i = after + 1; i < plan_.threads; ++i) {
    if (runs_[i].wait == Wait::kRunnable) return i;
  }
  return kScheduler;
}

void BatchRun::file_continuation(boost::context::fiber&& from) {
  if (from_ == kScheduler) {
    scheduler_ = std::move(from);
  } else {
    runs_[from_].fiber = std::move(from);
  }
}

boost::context::fiber BatchRun::take_target(std::uint32_t self, std::uint32_t target) {
  from_ = self;
  if (target == kScheduler) {
    current_batch_lane = nullptr;
    return std::move(scheduler_);
  }
  ++fiber_resumes_;
  current_batch_lane = &lanes_[target];
  return std::move(runs_[target].fiber);
}

void BatchRun::yield(BatchLane& lane) {
  const std::uint32_t self = lane.linear_id;
  boost::context::fiber target = take_target(self, next_runnable(self));
  file_continuation(std::move(target).resume());
  current_batch_lane = &lane;
}

BatchRegion BatchRun::decl_region(std::uint32_t index) const {
  return {&decl_regions_[index], arena_stride_};
}

void BatchRun::barrier(BatchLane& lane, bool threadgroup, std::source_location site) {
  LaneRun& r = runs_[lane.linear_id];
  r.wait = threadgroup ? Wait::kThreadgroup : Wait::kSimdgroup;
  r.site = site_of(site);
  r.op = nullptr;
  if (!threadgroup) lane.simd->waiting |= 1u << lane.lane;
  yield(lane);
}

void BatchRun::matrix_op(BatchLane& lane, const BatchMatrixOp& op) {
  BatchSimdgroup& simd = *lane.simd;
  const std::uint32_t n = lane.matrix_ops++;
  const BatchSite site = site_of(op.site);
  if (op.waits) {
    // The op must be the next one: no lane goes past a load or store before it is performed.
    if (n != simd.performed) batch_abort("the lanes reach different matrix operations");
    LaneRun& r = runs_[lane.linear_id];
    r.wait = Wait::kSimdgroup;
    r.site = site;
    r.op = &op;
    simd.waiting |= 1u << lane.lane;
    yield(lane);
    return;
  }
  if (n == simd.performed) {
    op.apply(op.descriptor, simd);
    simd.recent[n % BatchSimdgroup::kRecentOps] = site;
    ++simd.performed;
    return;
  }
  // A lane behind the first: it must be reaching the op the first one performed.
  if (n > simd.performed || simd.performed - n > BatchSimdgroup::kRecentOps ||
      !same_site(simd.recent[n % BatchSimdgroup::kRecentOps], site)) {
    batch_abort("the lanes reach different matrix operations");
  }
}

bool BatchRun::resolve_simdgroup(BatchSimdgroup& simd) {
  const std::uint32_t waiting = simd.waiting;
  if (waiting == 0) return false;
  const std::uint32_t all = simd.lane_count == 32 ? 0xFFFFFFFFu : (1u << simd.lane_count) - 1;
  if (waiting != (all & ~simd.done)) {
    stop("lanes of a simdgroup wait at different places");
    return false;
  }
  const LaneRun& lead =
      runs_[simd.first_lane + static_cast<std::uint32_t>(std::countr_zero(waiting))];
  for (std::uint32_t rest = waiting; rest != 0; rest &= rest - 1) {
    const LaneRun& r = runs_[simd.first_lane + static_cast<std::uint32_t>(std::countr_zero(rest))];
    const bool same =
        same_site(r.site, lead.site) && (r.op == nullptr) == (lead.op == nullptr) &&
        (r.op == nullptr ||
         (r.op->apply == lead.op->apply && r.op->descriptor_bytes == lead.op->descriptor_bytes &&
          std::memcmp(r.op->descriptor, lead.op->descriptor, lead.op->descriptor_bytes) == 0));
    if (!same) {
      stop("lanes of a simdgroup wait at different operations");
      return false;
    }
  }
  if (lead.op != nullptr) {
    try {
      lead.op->apply(lead.op->descriptor, simd);
    } catch (const BatchAbort& a) {
      stop(a.reason);
      return false;
    }
    simd.recent[simd.performed % BatchSimdgroup::kRecentOps] = lead.site;
    ++simd.performed;
  }
  for (std::uint32_t rest = waiting; rest != 0; rest &= rest - 1) {
    runs_[simd.first_lane + static_cast<std::uint32_t>(std::countr_zero(rest))].wait =
        Wait::kRunnable;
  }
  simd.waiting = 0;
  return true;
}

bool BatchRun::release_barrier() {
  const LaneRun* lead = nullptr;
  for (const LaneRun& r : runs_) {
    if (r.wait == Wait::kDone) continue;
    if (r.wait != Wait::kThreadgroup) return false;
    if (lead == nullptr) {
      lead = &r;
    } else if (!same_site(r.site, lead->site)) {
      return false;
    }
  }
  if (lead == nullptr) return false;
  for (LaneRun& r : runs_) {
    if (r.wait == Wait::kThreadgroup) r.wait = Wait::kRunnable;
  }
  return true;
}

}  // namespace marlin::sim
