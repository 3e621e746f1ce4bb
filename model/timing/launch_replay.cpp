#include "model/timing/launch_replay.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "model/common/input_error.h"
#include "model/common/invariant.h"
#include "model/timing/trace_check.h"

namespace marlin::timing {
namespace {

constexpr Cycles kNever(std::numeric_limits<std::int64_t>::max() / 4);

std::string where(const sim::LaunchHeader& header) {
  return "trace of kernel '" + header.kernel + "'";
}

std::string trace_name(const sim::LaunchHeader& header,
                       const std::array<std::uint32_t, 3>& threadgroup, std::uint32_t simdgroup) {
  return where(header) + ": threadgroup (" + std::to_string(threadgroup[0]) + "," +
         std::to_string(threadgroup[1]) + "," + std::to_string(threadgroup[2]) + ") simdgroup " +
         std::to_string(simdgroup);
}

std::string trace_name(const sim::LaunchHeader& header, const sim::SimdgroupTrace& sg) {
  return trace_name(header, sg.threadgroup, sg.simdgroup);
}

// A streamed launch's header (waiting for it), or the whole trace's.
sim::LaunchHeader header_of(const LaunchInput& input) {
  if (input.stream != nullptr) return input.stream->header();
  const sim::LaunchTrace& t = *input.trace;
  return {t.kernel, t.threadgroups_per_grid, t.threads_per_threadgroup, t.threadgroup_memory_bytes};
}

}  // namespace

LaunchReplay::LaunchReplay(const ReplayDevice& device, const LaunchInput& input, int launch_index,
                           Cycles begin, Cycles overhead)
    : device_(device),
      trace_(input.stream != nullptr ? nullptr : input.trace),
      stream_(input.stream),
      header_(header_of(input)),
      launch_index_(launch_index),
      begin_(begin),
      exec_begin_(begin + overhead),
      cores_(device.gpu.cores),
      schedulers_(device.gpu.schedulers_per_core),
      resident_(input.resident_threadgroups_per_core),
      sgs_per_tg_(0),
      slots_per_core_(0),
      tail_start_(kNever) {
  if (resident_ < 1) {
    throw InputError(where(header_) + ": resident_threadgroups_per_core must be at least 1 (got " +
                     std::to_string(resident_) + ")");
  }
  const std::uint64_t threadgroups = header_.threadgroup_count();
  const std::uint64_t threads = header_.thread_count();
  if (threadgroups > std::numeric_limits<std::uint32_t>::max()) {
    throw InputError(where(header_) + ": more than 2^32-1 threadgroups in the grid");
  }
  if (threadgroups > 0 && (threads == 0 || threads > 65536)) {
    throw InputError(where(header_) +
                     ": threads_per_threadgroup must hold 1 to 65536 threads (got " +
                     std::to_string(threads) + ")");
  }
  const auto width = static_cast<std::uint64_t>(device.gpu.simd_width);
  total_threadgroups_ = static_cast<std::uint32_t>(threadgroups);
  sgs_per_tg_ = static_cast<int>((threads + width - 1) / width);
  slots_per_core_ = resident_ * sgs_per_tg_;
  result_.kernel = header_.kernel;
  result_.begin = begin;
  result_.overhead = overhead;
  result_.threadgroups = threadgroups;
  result_.simdgroups_per_threadgroup = sgs_per_tg_;
  result_.resident_threadgroups_per_core = resident_;
  index_traces();

  sgs_.assign(static_cast<std::size_t>(cores_ * slots_per_core_), SimdgroupSlot{});
  tgs_.assign(static_cast<std::size_t>(cores_ * resident_), ThreadgroupSlot{});
  for (ThreadgroupSlot& slot : tgs_) slot.empty_since = exec_begin_;
  Scheduler idle_scheduler;
  idle_scheduler.wake = kNever;
  idle_scheduler.pipe_holder.fill(StallClass::kAluBusy);
  scheds_.assign(static_cast<std::size_t>(cores_ * schedulers_), idle_scheduler);
  live_capacity_ = (slots_per_core_ + schedulers_ - 1) / schedulers_;
  live_by_age_.assign(scheds_.size() * static_cast<std::size_t>(live_capacity_), LiveEntry{});
  live_count_.assign(scheds_.size(), 0);
  tgm_candidates_.assign(scheds_.size(), 0);
  held_at_barrier_.assign(scheds_.size(), 0);
  free_slots_.assign(static_cast<std::size_t>(cores_), resident_);
  resident_sgs_.assign(static_cast<std::size_t>(cores_), 0);
  tgm_next_.assign(static_cast<std::size_t>(cores_), 0);
  tgm_grant_.assign(static_cast<std::size_t>(cores_), -1);
  core_wake_.assign(static_cast<std::size_t>(cores_), kNever);
  parts_.resize(1);
  Partition& all = parts_.front();
  all.end_core = cores_;
  all.counters = device_.counters;
  all.coalescer = device_.coalescer;
  all.lanes.resize(64);
  all.woken = kNever;
  all.last_end = exec_begin_;
  all.window_end = kNever;
  all.tail_from = kNever;
  std::vector<EndEvent> storage;
  storage.reserve(tgs_.size() + 1);
  all.ends = decltype(all.ends)(std::greater<>(), std::move(storage));
  part_of_.assign(static_cast<std::size_t>(cores_), &all);
}

void LaunchReplay::index_traces() {
  binding_.resize(static_cast<std::size_t>(sgs_per_tg_));
  const auto slots = static_cast<std::size_t>(cores_ * slots_per_core_);
  slot_rings_.resize(slots);
  if (stream_ != nullptr) {
    // Unseen threadgroups are unknown: each slot's ring grows to what the traces bound to it
    // reach (bind_streamed), and a newly dispatched simdgroup may compete for the
    // threadgroup-memory pipe at once (which only bounds issue-ahead more tightly; the results
    // are the same).
    first_op_threadgroup_memory_ = true;
    held_.resize(static_cast<std::size_t>(cores_ * resident_));
    held_done_.resize(held_.size());
    readers_.resize(slots);
    return;
  }
  const auto& grid = header_.threadgroups_per_grid;
  trace_of_.assign(static_cast<std::size_t>(total_threadgroups_) * sgs_per_tg_, -1);
  // Completion cycles: a ring of the newest ops per simdgroup slot, for the traces whose deps
  // reach back at most kMaxRecentOps ops (counting the op itself); a trace whose deps reach
  // further gets an array of its own.
  done_offset_.assign(trace_->simdgroups.size(), kInRing);
  std::size_t own_ops = 0;
  for (std::size_t i = 0; i < trace_->simdgroups.size(); ++i) {
    const sim::SimdgroupTrace& sg = trace_->simdgroups[i];
    if (sg.threadgroup[0] >= grid[0] || sg.threadgroup[1] >= grid[1] ||
        sg.threadgroup[2] >= grid[2] || sg.simdgroup >= static_cast<std::uint32_t>(sgs_per_tg_)) {
      throw InputError(trace_name(header_, sg) + ": outside the grid or the threadgroup");
    }
    const std::uint64_t linear =
        sg.threadgroup[0] +
        static_cast<std::uint64_t>(grid[0]) *
            (sg.threadgroup[1] + static_cast<std::uint64_t>(grid[1]) * sg.threadgroup[2]);
    std::int32_t& slot = trace_of_[linear * static_cast<std::uint64_t>(sgs_per_tg_) + sg.simdgroup];
    if (slot >= 0) throw InputError(trace_name(header_, sg) + ": appears twice");
    slot = static_cast<std::int32_t>(i);
    const std::size_t reach = check_trace(sg);
    if (!sg.ops.empty() && pipe_of(sg.ops.front()) == Pipe::kThreadgroupMemory) {
      first_op_threadgroup_memory_ = true;
    }
    if (reach <= kMaxRecentOps) {
      ring_reach_ = std::max(ring_reach_, reach);
    } else {
      done_offset_[i] = own_ops;
      own_ops += sg.ops.size();
    }
  }
  done_.assign(own_ops, Cycles(0));
}

std::size_t LaunchReplay::check_trace(const sim::SimdgroupTrace& sg) const {
  const auto checked = check_simdgroup_trace(sg);
  if (const auto* defect = std::get_if<TraceDefect>(&checked)) {
    throw InputError(trace_name(header_, sg) + " op " + std::to_string(defect->op) + ": " +
                     defect->what);
  }
  return std::get<std::size_t>(checked);
}

void LaunchReplay::bind_traces(int core, int slot, std::uint32_t index) {
  std::fill(binding_.begin(), binding_.end(), TraceBinding{});
  if (stream_ != nullptr) {
    bind_streamed(core, slot, index);
    return;
  }
  for (int i = 0; i < sgs_per_tg_; ++i) {
    const std::int32_t trace_index =
        trace_of_[static_cast<std::size_t>(index) * static_cast<std::size_t>(sgs_per_tg_) +
                  static_cast<std::size_t>(i)];
    if (trace_index < 0) continue;
    const sim::SimdgroupTrace& trace = trace_->simdgroups[static_cast<std::size_t>(trace_index)];
    TraceBinding& b = binding_[static_cast<std::size_t>(i)];
    b = {.bound = true,
         .ops = trace.ops.data(),
         .accesses = trace.accesses.data(),
         .op_count = static_cast<std::uint32_t>(trace.ops.size())};
    const std::size_t own = done_offset_[static_cast<std::size_t>(trace_index)];
    if (own == kInRing) {
      b.done = ring_for(core, slot * sgs_per_tg_ + i, ring_reach_, b.done_mask);
    } else {
      b.done = done_.data() + own;
      b.done_mask = ~std::uint32_t{0};
    }
  }
}

void LaunchReplay::bind_streamed(int core, int slot, std::uint32_t index) {
  const auto at = static_cast<std::size_t>(core * resident_ + slot);
  std::vector<StreamedTrace>& held = held_[at];
  held = stream_->take(index);
  const auto& grid = header_.threadgroups_per_grid;
  const std::array<std::uint32_t, 3> position{index % grid[0], (index / grid[0]) % grid[1],
                                              index / (grid[0] * grid[1])};
  std::vector<std::size_t> reach(held.size());
  std::size_t own_ops = 0;
  for (std::size_t k = 0; k < held.size(); ++k) {
    const StreamedTrace& sg = held[k];
    if (sg.threadgroup() != position || sg.simdgroup() >= static_cast<std::uint32_t>(sgs_per_tg_)) {
      throw InputError(trace_name(header_, sg.threadgroup(), sg.simdgroup()) +
                       ": streamed as threadgroup " + std::to_string(index) +
                       " or outside its threadgroup");
    }
    TraceBinding& b = binding_[sg.simdgroup()];
    if (b.bound) {
      throw InputError(trace_name(header_, sg.threadgroup(), sg.simdgroup()) + ": appears twice");
    }
    b.bound = true;
    // A packed trace passed the check when the stream packed it.
    reach[k] = sg.packed ? sg.packed->reach : check_trace(sg.plain);
    if (reach[k] > kMaxRecentOps) own_ops += sg.op_count();
  }
  std::vector<Cycles>& own = held_done_[at];
  own.assign(own_ops, Cycles(0));
  own_ops = 0;
  for (std::size_t k = 0; k < held.size(); ++k) {
    const StreamedTrace& sg = held[k];
    TraceBinding& b = binding_[sg.simdgroup()];
    if (sg.shared) {
      // A translated threadgroup: its base's trace, unpacked once, read in place.
      const sim::SimdgroupTrace& base = unpacked_base(sg.packed);
      b.ops = base.ops.data();
      b.accesses = base.accesses.data();
      b.shifts = sg.shifts;
    } else if (sg.packed) {
      b.packed = sg.packed.get();
    } else {
      b.ops = sg.plain.ops.data();
      b.accesses = sg.plain.accesses.data();
    }
    b.op_count = static_cast<std::uint32_t>(sg.op_count());
    if (reach[k] > kMaxRecentOps) {
      b.done = own.data() + own_ops;
      b.done_mask = ~std::uint32_t{0};
      own_ops += sg.op_count();
    } else {
      b.done = ring_for(core, slot * sgs_per_tg_ + static_cast<int>(sg.simdgroup()), reach[k],
                        b.done_mask);
    }
  }
}

const sim::SimdgroupTrace& LaunchReplay::unpacked_base(
    const std::shared_ptr<const PackedTrace>& packed) {
  auto [it, inserted] = unpacked_bases_.try_emplace(packed);
  if (inserted) it->second = unpack_trace(*packed);
  return it->second;
}

Cycles* LaunchReplay::ring_for(int core, int local, std::size_t reach, std::uint32_t& mask) {
  std::vector<Cycles>& ring = slot_rings_[static_cast<std::size_t>(core * slots_per_core_ + local)];
  const std::size_t size = std::bit_ceil(reach);
  if (ring.size() < size) ring.resize(size);
  mask = static_cast<std::uint32_t>(size - 1);
  return ring.data();
}

LaunchResult LaunchReplay::run() {
  Cycles t = exec_begin_;
  ProgressWatchdog watchdog;
  // Slots free up only as threadgroups end: the dispatcher runs at the start and after ends.
  dispatch(t);
  for (;;) {
    if (parallel_ready()) {
      t = run_parallel(t);
      if (t == kNever) break;
      continue;  // the host was busy: serial steps from t
    }
    --serial_steps_left_;
    Partition& all = parts_.front();
    watchdog.step(progress(), t);
    if (!all.ends.empty() && all.ends.top().at <= t) {
      end_threadgroups(all, t);
      dispatch(t);
    }
    if (!all.ends.empty() && all.ends.top().at <= t) continue;  // threadgroups with no work
    const Cycles next = step_cores(all, t);
    if (next == kNever) break;
    MARLIN_CHECK(next >= t, "simulated time never goes backwards");
    t = next;
  }
  // A barrier releases once every simdgroup still running has arrived, so nothing can wait
  // forever: when no event is left, every threadgroup has run.
  Partition& all = parts_.front();  // (run_parallel() leaves one partition again)
  MARLIN_CHECK(active_threadgroups_ == all.ended && next_threadgroup_ == total_threadgroups_,
               "every threadgroup ran to its end");
  MARLIN_CHECK(tgm_candidates_.all_equal(0),
               "no finished simdgroup waits for the threadgroup-memory grant");
  MARLIN_CHECK(held_at_barrier_.all_equal(0), "no finished simdgroup is held at a barrier");

  // Close the launch: overhead is idle for every slot, empty slots after the last
  // dispatch are the tail.
  const Cycles end = all.last_end;
  result_.breakdown += all.breakdown;
  result_.cycles = end - begin_;
  const std::int64_t slots = static_cast<std::int64_t>(cores_) * slots_per_core_;
  result_.slot_cycles = slots * result_.cycles.count();
  result_.breakdown.add(StallClass::kIdle, slots * (exec_begin_ - begin_).count());
  for (const ThreadgroupSlot& slot : tgs_) {
    MARLIN_CHECK(!slot.busy, "every threadgroup ended");
    result_.breakdown.add(StallClass::kTail, sgs_per_tg_ * (end - slot.empty_since).count());
  }
  MARLIN_CHECK(result_.breakdown.total() == result_.slot_cycles,
               "the stall breakdown covers every simdgroup-slot cycle exactly once");
  result_.tail_cycles = tail_start_ < end ? end - tail_start_ : Cycles(0);
  for (const ThreadgroupSlot& slot : tgs_) result_.waves = std::max(result_.waves, slot.held);
  for (const ThreadgroupSlot& slot : tgs_) {
    if (slot.held == result_.waves && result_.waves > 0) ++result_.last_wave_threadgroups;
  }
  const std::int64_t exec = (end - exec_begin_).count();
  result_.achieved_simdgroups_per_core =
      exec > 0 ? static_cast<double>(all.resident_sg_cycles) / static_cast<double>(cores_ * exec)
               : 0.0;
  if (device_.sink != nullptr) {
    device_.sink->on_launch(launch_index_, header_.kernel, begin_, end);
  }
  return result_;
}

void LaunchReplay::end_threadgroups(Partition& p, Cycles t) {
  while (!p.ends.empty() && p.ends.top().at <= t) {
    const EndEvent event = p.ends.top();
    p.ends.pop();
    end_threadgroup(event.core, event.slot);
  }
}

Cycles LaunchReplay::step_cores(Partition& p, Cycles t) {
  Cycles next = p.ends.empty() ? kNever : p.ends.top().at;
  p.woken = kNever;  // a barrier release may wake a scheduler visited earlier in this step
  for (int core = p.first_core; core < p.end_core; ++core) {
    Cycles& core_wake = core_wake_[static_cast<std::size_t>(core)];
    if (core_wake <= t) {
      core_wake = kNever;
      tgm_grant_[static_cast<std::size_t>(core)] = grant_threadgroup_memory(core, t);
      for (int k = 0; k < schedulers_; ++k) {
        Scheduler& s = scheduler(core, k);
        if (s.wake <= t && s.last_issue != t) try_issue(core, k, t);
        core_wake = std::min(core_wake, s.wake);
      }
    }
    next = std::min(next, core_wake);
  }
  if (!p.ends.empty()) next = std::min(next, p.ends.top().at);
  return std::min(next, p.woken);
}

// ---- Dispatcher ---------------------------------------------------------------------------

void LaunchReplay::dispatch(Cycles t) {
  while (next_threadgroup_ < total_threadgroups_) {
    int best = -1;
    for (int core = 0; core < cores_; ++core) {
      const int free = free_slots_[static_cast<std::size_t>(core)];
      if (free > 0 && (best < 0 || free > free_slots_[static_cast<std::size_t>(best)])) {
        best = core;
      }
    }
    if (best < 0) return;
    int slot = 0;
    while (tg(best, slot).busy) ++slot;
    start_threadgroup(best, slot, t);
  }
  // Nothing left to dispatch: slots empty from now on are the tail.
  if (tail_start_ == kNever) {
    for (int core = 0; core < cores_; ++core) {
      if (free_slots_[static_cast<std::size_t>(core)] > 0) {
        tail_start_ = t;
        break;
      }
    }
  }
}

void LaunchReplay::start_threadgroup(int core, int slot, Cycles t) {
  ThreadgroupSlot& group = tg(core, slot);
  const std::uint32_t index = next_threadgroup_++;
  const Cycles empty_since = group.empty_since;
  group = ThreadgroupSlot{.busy = true,
                          .threadgroup = index,
                          .begin = t,
                          .end = t,
                          .empty_since = empty_since,
                          .live = sgs_per_tg_,
                          .arrived = 0,
                          .last_arrival = t,
                          .held = group.held + 1};
  // A slot empty while work remained is idle (dispatch is immediate, so this is 0 today).
  part(core).breakdown.add(StallClass::kIdle, sgs_per_tg_ * (t - group.empty_since).count());
  --free_slots_[static_cast<std::size_t>(core)];
  ++active_threadgroups_;
  device_.counters->registry.increment(device_.counters->threadgroups);
  resident_sgs_[static_cast<std::size_t>(core)] += sgs_per_tg_;
  if (device_.sink != nullptr) {
    device_.sink->on_counter(TimingCounter::kResidentSimdgroups, core, t,
                             resident_sgs_[static_cast<std::size_t>(core)]);
  }
  bind_traces(core, slot, index);
  for (int i = 0; i < sgs_per_tg_; ++i) {
    const int local = slot * sgs_per_tg_ + i;
    SimdgroupSlot& s = sg(core, local);
    const bool was_candidate = tgm_candidate(s);
    s = SimdgroupSlot{};
    const TraceBinding& b = binding_[static_cast<std::size_t>(i)];
    s.ops = b.ops;
    s.accesses = b.accesses;
    s.op_count = b.op_count;
    s.unpacked = b.op_count;
    s.shifts = b.shifts;
    if (b.packed != nullptr) {
      s.reader = &readers_[static_cast<std::size_t>(core * slots_per_core_ + local)];
      s.reader->start(*b.packed);
      s.unpacked = 0;  // prepare_next() below unpacks the first ops
    }
    s.done = b.done;
    s.done_mask = b.done_mask;
    s.live = true;
    recount_tgm(core, local, was_candidate);
    s.age = next_age_++;
    add_live(core, local);
    s.wait_from = t;
    s.last_done = t;
    s.open_begin = t;
    s.open_end = t;
    prepare_next(core, local, t);
    if (s.live) wake(core, local, s.ready_at);
  }
}

void LaunchReplay::end_threadgroup(int core, int slot) {
  ThreadgroupSlot& group = tg(core, slot);
  MARLIN_CHECK(group.busy && group.live == 0, "a threadgroup ends after all its simdgroups");
  for (int i = 0; i < sgs_per_tg_; ++i) {
    const int local = slot * sgs_per_tg_ + i;
    charge(core, local, StallClass::kIdle, sg(core, local).end, group.end);
    flush_state(core, local);
  }
  Partition& p = part(core);
  p.resident_sg_cycles +=
      static_cast<std::int64_t>(sgs_per_tg_) * (group.end - group.begin).count();
  p.last_end = std::max(p.last_end, group.end);
  group.busy = false;
  group.empty_since = group.end;
  if (stream_ != nullptr) {  // its traces are no longer read
    held_[static_cast<std::size_t>(core * resident_ + slot)] = {};
    held_done_[static_cast<std::size_t>(core * resident_ + slot)] = {};
  }
  ++free_slots_[static_cast<std::size_t>(core)];
  ++p.ended;
  if (device_.threadgroups_ended != nullptr) {
    device_.threadgroups_ended->fetch_add(1, std::memory_order_relaxed);
  }
  resident_sgs_[static_cast<std::size_t>(core)] -= sgs_per_tg_;
  if (device_.sink != nullptr) {
    // DRAM windows that ended by now are final; sending them at threadgroup ends keeps the
    // order of sink calls independent of which other cycles the replay visits.
    if (device_.dram_counter != nullptr) device_.dram_counter->advance(group.end);
    device_.sink->on_threadgroup(launch_index_, core, slot, group.threadgroup, group.begin,
                                 group.end);
    device_.sink->on_counter(TimingCounter::kResidentSimdgroups, core, group.end,
                             resident_sgs_[static_cast<std::size_t>(core)]);
  }
}

// ---- Accounting ---------------------------------------------------------------------------

void LaunchReplay::record_state(int core, int local, StallClass stall, Cycles from, Cycles to) {
  SimdgroupSlot& s = sg(core, local);
  if (s.open_state == stall && s.open_end == from) {
    s.open_end = to;
    return;
  }
  flush_state(core, local);
  s.open_state = stall;
  s.open_begin = from;
  s.open_end = to;
}

void LaunchReplay::flush_state(int core, int local) {
  SimdgroupSlot& s = sg(core, local);
  if (device_.sink != nullptr && s.open_end > s.open_begin) {
    device_.sink->on_simdgroup_state(core, local, s.open_state, s.open_begin, s.open_end);
  }
  s.open_begin = s.open_end;
}

}  // namespace marlin::timing
