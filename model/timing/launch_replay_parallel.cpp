// LaunchReplay, part 4: the parallel replay. Between threadgroup ends the cores interact only
// through the memory below their L1s (the L2 port, L2, SLC and DRAM), and no
// request there returns its data sooner than MemoryHierarchy::shared_latency() after it was
// made. So the cores advance side by side, each thread owning a range of them (a partition),
// in windows of that length: a request below the L1 made in a window is logged, its op's
// completion is taken as the window's end (the earliest it can be), and at the window's end
// one thread makes the logged requests in the serial replay's order (cycle, then the visit of
// the cores within the cycle, then core), after which each thread gives its partition's ops
// their completions.
//
// Why it is exact: within a window no core reads what another core's step wrote, and nothing
// a step does depends on a pending completion before the window ends. An op that depends on
// one is not eligible before the bound, so it does not issue in the window; last_done takes
// the completions in issue order once any is pending; a simdgroup that finished with pending
// ops leaves its scheduler at once but ends (stall charges, threadgroup end) when they are
// known. Issuing ahead stops at the window's end. While threadgroups are left to dispatch, a
// window ends no later than the next threadgroup end can come, and the next round starts with
// one thread ending and dispatching as the serial replay does at that cycle (dispatch_round).
// Between rounds a core may move to the neighbouring partition (rebalance): no request of
// its is then logged, pending or unsettled, and each log still holds lower cores than the
// next, so the order of the requests is the same. For the same reason the partitions may
// merge between rounds and the serial replay go on from there (a host short of cores for the
// threads: leave_parallel), and split again later.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <thread>

#include "model/common/invariant.h"
#include "model/timing/host_share.h"
#include "model/timing/launch_replay.h"

namespace marlin::timing {
namespace {

constexpr Cycles kNever(std::numeric_limits<std::int64_t>::max() / 4);
// Windows shorter than this would synchronize the threads too often to gain anything.
constexpr Cycles kMinWindow(16);
// How often the threads measure their share of the host's cores (rounds), and how many
// serial steps follow the first stop of a parallel part for a busy host, and at most.
constexpr std::int64_t kHostShareRounds = 32;
constexpr std::int64_t kFirstSerialSteps = std::int64_t{1} << 14;
constexpr std::int64_t kMostSerialSteps = std::int64_t{1} << 24;

// Lets `count` threads step through rounds together: every thread calls arrive() once per
// round and returns when all have. Spins (the threads have cores to themselves while the
// replay runs), yielding now and then in case they do not.
class RoundBarrier {
 public:
  explicit RoundBarrier(int count) : count_(count) {}

  void arrive() {
    const std::uint64_t round = round_.load(std::memory_order_acquire);
    if (waiting_.fetch_add(1, std::memory_order_acq_rel) + 1 == count_) {
      waiting_.store(0, std::memory_order_relaxed);
      round_.store(round + 1, std::memory_order_release);
      return;
    }
    for (std::uint64_t spins = 1; round_.load(std::memory_order_acquire) == round; ++spins) {
      if (spins % 64 == 0) std::this_thread::yield();
    }
  }

 private:
  const int count_;
  std::atomic<int> waiting_{0};
  std::atomic<std::uint64_t> round_{0};
};

}  // namespace

bool LaunchReplay::parallel_ready() const {
  // Asked before every serial step: what rules out most of them (one host thread, one core,
  // a closed gate) comes first.
  return device_.threads > 1 && cores_ > 1 && device_.sink == nullptr && parts_.size() == 1 &&
         next_threadgroup_ > 0 && serial_steps_left_ <= 0 &&
         (device_.parallel_gate == nullptr ||
          device_.parallel_gate->load(std::memory_order_relaxed)) &&
         device_.memory->shared_latency() >= kMinWindow;
}

void LaunchReplay::split_partitions(int count) {
  // Contiguous ranges of cores with about the same number of live simdgroups each.
  std::vector<int> live(static_cast<std::size_t>(cores_), 0);
  int total = 0;
  for (int core = 0; core < cores_; ++core) {
    for (int local = 0; local < slots_per_core_; ++local) {
      if (sg(core, local).live) ++live[static_cast<std::size_t>(core)];
    }
    total += live[static_cast<std::size_t>(core)];
  }
  std::vector<EndEvent> ends;
  while (!parts_.front().ends.empty()) {
    ends.push_back(parts_.front().ends.top());
    parts_.front().ends.pop();
  }
  parts_.resize(static_cast<std::size_t>(count));
  const Partition& all = parts_.front();
  int core = 0;
  int seen = 0;
  for (int i = 0; i < count; ++i) {
    Partition& p = parts_[static_cast<std::size_t>(i)];
    p.first_core = core;
    const std::int64_t share = static_cast<std::int64_t>(total) * (i + 1) / count;
    // Leave at least one core for each later partition.
    while (core < cores_ - (count - 1 - i) && (seen < share || core == p.first_core)) {
      seen += live[static_cast<std::size_t>(core)];
      part_of_[static_cast<std::size_t>(core)] = &p;
      ++core;
    }
    if (i == count - 1) {
      for (; core < cores_; ++core) {
        part_of_[static_cast<std::size_t>(core)] = &p;
      }
    }
    p.end_core = core;
    if (i > 0) {
      p.own_counters = std::make_unique<CoreCounters>();
      p.counters = p.own_counters.get();
      p.own_coalescer = std::make_unique<Coalescer>(*device_.coalescer);
      p.own_coalescer->reset_stats();
      p.coalescer = p.own_coalescer.get();
      p.lanes.resize(all.lanes.size());
      p.last_end = all.last_end;
    }
    p.woken = kNever;
    p.tail_from = kNever;
    p.deferring = true;
  }
  for (const EndEvent& e : ends) part(e.core).ends.push(e);
}

void LaunchReplay::run_window(Partition& p, bool dispatching) {
  Cycles t = p.next;
  while (t < p.window_end) {
    p.watchdog.step(progress(p), t);
    p.pass = t == p.last_step ? p.pass + 1 : 0;
    p.last_step = t;
    if (!p.ends.empty() && p.ends.top().at <= t) {
      if (dispatching) {
        // Its slot takes the next threadgroup at t, in the serial order: dispatch_round().
        MARLIN_CHECK(t + Cycles(1) == p.window_end,
                     "while threadgroups are left to dispatch, one ends inside a window only "
                     "in its last cycle");
        break;
      }
      p.tail_from = std::min(p.tail_from, t);
    }
    end_threadgroups(p, t);
    const Cycles next = step_cores(p, t);
    MARLIN_CHECK(next >= t, "simulated time never goes backwards");
    t = next;
  }
  p.next = t;
}

Cycles LaunchReplay::next_end_bound(Cycles begin) const {
  Cycles bound = kNever;
  for (const Partition& p : parts_) {
    if (!p.ends.empty()) bound = std::min(bound, p.ends.top().at);
  }
  // A threadgroup with a simdgroup still issuing ends no sooner than that simdgroup issues its
  // last op, one op a cycle at most from when its next op may issue. (One whose simdgroups
  // all finished has its end among the ends: a round starts with every completion known.)
  for (int core = 0; core < cores_; ++core) {
    for (int slot = 0; slot < resident_; ++slot) {
      const ThreadgroupSlot& group = tg(core, slot);
      if (!group.busy || group.live == 0) continue;
      Cycles latest = begin;
      for (int i = 0; i < sgs_per_tg_; ++i) {
        const SimdgroupSlot& g = sg(core, slot * sgs_per_tg_ + i);
        if (!g.live) continue;
        const Cycles from = !g.blocked && g.run_left == 0 ? std::max(begin, g.ready_at) : begin;
        latest = std::max(latest, last_issue_bound(g, from));
      }
      bound = std::min(bound, latest);
    }
  }
  return bound;
}

LaunchReplay::Partition* LaunchReplay::first_due(Cycles t) {
  Partition* first = nullptr;
  for (Partition& p : parts_) {
    if (!p.ends.empty() && p.ends.top().at <= t &&
        (first == nullptr || first->ends.top() > p.ends.top())) {
      first = &p;
    }
  }
  return first;
}

Cycles LaunchReplay::dispatch_round(std::vector<Cycles>& next_steps, Cycles window) {
  const Cycles begin = *std::min_element(next_steps.begin(), next_steps.end());
  // As the serial replay's steps at `begin`: the threadgroups due end, in order, then the
  // free slots take the next ones, again while some end at once.
  do {
    for (Partition* first = first_due(begin); first != nullptr; first = first_due(begin)) {
      const EndEvent e = first->ends.top();
      first->ends.pop();
      end_threadgroup(e.core, e.slot);
    }
    dispatch(begin);
  } while (first_due(begin) != nullptr);
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    pull_next_step(parts_[i]);
    next_steps[i] = parts_[i].next;
  }
  return std::max(begin + Cycles(1), std::min(begin + window, next_end_bound(begin)));
}

void LaunchReplay::resolve_logs() {
  std::vector<DeferredLog*> logs;
  logs.reserve(parts_.size());
  for (Partition& p : parts_) logs.push_back(&p.log);
  device_.memory->resolve_deferred(logs);
  for (Partition& p : parts_) device_.memory->add_settled_hits(p.settled);
}

void LaunchReplay::finish_window(Partition& p) {
  // Each pending op's completion, its dependent's readiness, then last_done in issue order.
  for (PendingOp& op : p.pending) {
    for (std::uint32_t i = op.first_request; i < op.end_request; ++i) {
      op.done = std::max(op.done, p.log[i].ready);
    }
    SimdgroupSlot& g = sg(op.core, op.local);
    // The ring still holds the op unless as many later ops have issued since.
    if (std::uint64_t{g.pc} - op.op <= std::uint64_t{g.done_mask}) {
      g.done[op.op & g.done_mask] = op.done;
    }
    if (g.live && !g.blocked && g.run_left == 0 && g.pc < g.op_count) {
      const sim::TraceOp& next = g.ops[g.pc & g.ops_mask];
      if (next.dep >= 0 && static_cast<std::uint32_t>(next.dep) == op.op) {
        g.dep_ready = op.done;
        g.ready_at = std::max(g.order_ready, op.done);
        sync_live(g);
        wake(op.core, op.local, g.ready_at);
      }
    }
  }
  for (const DoneUpdate& u : p.done_updates) {
    SimdgroupSlot& g = sg(u.core, u.local);
    const Cycles done =
        u.pending >= 0 ? p.pending[static_cast<std::size_t>(u.pending)].done : u.done;
    if (done > g.last_done) {
      g.last_done = done;
      g.last_done_class = u.wait_class;
    }
    g.pending_ops = 0;
  }
  for (const PendingFinish& f : p.finishes) {
    SimdgroupSlot& g = sg(f.core, f.local);
    settle_simdgroup(f.core, f.local, std::max(f.order_ready, g.last_done));
    const int slot = f.local / sgs_per_tg_;
    --tg(f.core, slot).unsettled;
    end_when_settled(f.core, slot);
  }
  p.log.clear();
  p.pending.clear();
  p.done_updates.clear();
  p.finishes.clear();
  // Wakes and ends may have come earlier than the step the window stopped at.
  pull_next_step(p);
}

void LaunchReplay::pull_next_step(Partition& p) const {
  for (int core = p.first_core; core < p.end_core; ++core) {
    p.next = std::min(p.next, core_wake_[static_cast<std::size_t>(core)]);
  }
  if (!p.ends.empty()) p.next = std::min(p.next, p.ends.top().at);
}

void LaunchReplay::rebalance(std::vector<Cycles>& next_steps) {
  for (std::size_t i = 0; i + 1 < parts_.size(); ++i) {
    Partition& earlier = parts_[i];
    Partition& later = parts_[i + 1];
    const int earlier_cores = earlier.end_core - earlier.first_core;
    const int later_cores = later.end_core - later.first_core;
    int move = 0;
    if (device_.balance == PartitionBalance::kSweep) {
      move = sweep_move(sweep_direction_[i], earlier_cores, later_cores);
      if (move != 0) sweep_direction_[i] = move;
    } else if (device_.balance == PartitionBalance::kByTime) {
      const auto seconds = [](std::chrono::steady_clock::duration d) {
        return std::chrono::duration<double>(d).count();
      };
      move = boundary_move(seconds(earlier.busy), earlier_cores, seconds(later.busy), later_cores);
    }
    if (move > 0) move_core(earlier.end_core - 1, earlier, later);
    if (move < 0) move_core(later.first_core, later, earlier);
  }
  // A partition's next step is its cores' earliest wake or end (run_window stops at it and
  // finish_window lowers it to them), so it is found again from its cores.
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    Partition& p = parts_[i];
    p.busy = {};
    p.next = kNever;
    pull_next_step(p);
    next_steps[i] = p.next;
  }
}

void LaunchReplay::move_core(int core, Partition& from, Partition& to) {
  MARLIN_CHECK(from.end_core - from.first_core > 1, "a partition keeps at least one core");
  std::vector<EndEvent> kept;
  while (!from.ends.empty()) {
    const EndEvent e = from.ends.top();
    from.ends.pop();
    if (e.core == core) {
      to.ends.push(e);
    } else {
      kept.push_back(e);
    }
  }
  for (const EndEvent& e : kept) from.ends.push(e);
  if (core == from.first_core && to.end_core == core) {
    ++from.first_core;
    ++to.end_core;
  } else {
    MARLIN_CHECK(core == from.end_core - 1 && to.first_core == core + 1,
                 "a partition gives a core at one of its ends to its neighbour there");
    --from.end_core;
    --to.first_core;
  }
  part_of_[static_cast<std::size_t>(core)] = &to;
  ++partition_moves_;
}

void LaunchReplay::merge_partitions() {
  Partition& all = parts_.front();
  for (std::size_t i = 1; i < parts_.size(); ++i) {
    Partition& p = parts_[i];
    all.counters->registry.accumulate(p.counters->registry);
    device_.coalescer->add_stats(*p.coalescer);
    all.breakdown += p.breakdown;
    all.last_end = std::max(all.last_end, p.last_end);
    all.resident_sg_cycles += p.resident_sg_cycles;
    all.ended += p.ended;
    all.tail_from = std::min(all.tail_from, p.tail_from);
    for (; !p.ends.empty(); p.ends.pop()) all.ends.push(p.ends.top());
  }
  if (tail_start_ == kNever) tail_start_ = all.tail_from;
  parts_.resize(1);
  all.first_core = 0;
  all.end_core = cores_;
  all.deferring = false;
  all.window_end = kNever;
  std::fill(part_of_.begin(), part_of_.end(), &all);
}

bool LaunchReplay::leave_parallel(std::int64_t round) const {
  if (device_.alternate_parallel > 0) return round % device_.alternate_parallel == 0;
  return std::any_of(parts_.begin(), parts_.end(),
                     [&](const Partition& p) { return p.host_share < device_.min_host_share; });
}

Cycles LaunchReplay::run_parallel(Cycles t) {
  const int count = std::min(device_.threads, cores_);
  split_partitions(count);
  for (Partition& p : parts_) p.next = t;
  const Cycles window = device_.memory->shared_latency();
  // Each partition's next step at the end of the last round. Every thread reads them all to
  // set its window, so they are copies: a partition's own `next` moves as soon as its thread
  // starts the next window.
  std::vector<Cycles> next_steps(static_cast<std::size_t>(count), t);
  sweep_direction_.assign(static_cast<std::size_t>(count), 1);
  RoundBarrier barrier(count);
  // A failure in a round's windows or requests is read after its second barrier, one in its
  // finishing after its third, so that every thread stops in the same round.
  std::atomic<bool> window_failed{false};
  std::atomic<bool> finish_failed{false};
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(count));
  const auto attempt = [&](int index, std::atomic<bool>& failed, const auto& work) {
    try {
      work();
    } catch (...) {
      errors[static_cast<std::size_t>(index)] = std::current_exception();
      failed.store(true, std::memory_order_release);
    }
  };
  // While threadgroups are left to dispatch, a round starts with the first thread ending and
  // dispatching threadgroups as the serial replay does at the round's first cycle, and its
  // windows end no later than the next threadgroup end can come (dispatch_round), which they
  // share through `dispatch_window_end`. Every thread reads `dispatching` at a round's start;
  // the first thread sets it for the next round before the round's last barrier.
  bool dispatching = next_threadgroup_ < total_threadgroups_;
  bool dispatching_next = dispatching;
  Cycles dispatch_window_end = kNever;
  // A round: every thread runs its partition's window, the first makes the window's logged
  // requests, then every thread finishes its partition's pending ops and notes its next step.
  // Every `rebalance_windows` rounds the first thread moves cores between the partitions
  // while the others wait (every thread counts the rounds).
  const std::int64_t rebalance_every =
      device_.balance == PartitionBalance::kOff ? 0 : device_.rebalance_windows;
  // Every `look_every` rounds each thread notes its share of a host core, and the first
  // decides whether they all stop (leave_parallel), set before the look's second barrier.
  const std::int64_t look_every = device_.alternate_parallel > 0
                                      ? device_.alternate_parallel
                                      : (device_.min_host_share > 0 ? kHostShareRounds : 0);
  bool stop = false;
  const auto run_rounds = [&](int index) {
    Partition& p = parts_[static_cast<std::size_t>(index)];
    ThreadTimes mark = thread_times_now();
    for (std::int64_t round = 0;; ++round) {
      if (look_every > 0 && round > 0 && round % look_every == 0) {
        const ThreadTimes now = thread_times_now();
        p.host_share = host_share(mark, now);
        mark = now;
        barrier.arrive();  // every thread noted its share
        if (index == 0) stop = leave_parallel(round);
        barrier.arrive();
        if (stop) return;
      }
      if (rebalance_every > 0 && round > 0 && round % rebalance_every == 0) {
        if (index == 0) attempt(index, window_failed, [&] { rebalance(next_steps); });
        barrier.arrive();  // the partitions have their cores and next steps
        if (window_failed.load(std::memory_order_acquire)) return;
      }
      const bool dispatched = dispatching;
      if (dispatched) {
        if (index == 0) {
          attempt(index, window_failed, [&] {
            dispatch_window_end = dispatch_round(next_steps, window);
            dispatching_next = next_threadgroup_ < total_threadgroups_;
          });
        }
        barrier.arrive();  // the threadgroups due ended and the next ones started
        if (window_failed.load(std::memory_order_acquire)) return;
      }
      const Cycles begin = *std::min_element(next_steps.begin(), next_steps.end());
      if (begin == kNever) return;
      p.window_end = dispatched ? dispatch_window_end : begin + window;
      const auto window_start = std::chrono::steady_clock::now();
      attempt(index, window_failed, [&] { run_window(p, dispatched); });
      p.busy += std::chrono::steady_clock::now() - window_start;
      barrier.arrive();  // every partition ran the window
      if (index == 0 && !window_failed.load(std::memory_order_acquire)) {
        ++parallel_windows_;
        attempt(index, window_failed, [&] { resolve_logs(); });
      }
      barrier.arrive();  // the requests are made
      if (window_failed.load(std::memory_order_acquire)) return;
      attempt(index, finish_failed, [&] { finish_window(p); });
      next_steps[static_cast<std::size_t>(index)] = p.next;
      if (index == 0) dispatching = dispatching_next;
      barrier.arrive();  // every partition is finished and its next step noted
      if (finish_failed.load(std::memory_order_acquire)) return;
    }
  };
  std::vector<std::thread> helpers;
  for (int i = 1; i < count; ++i) helpers.emplace_back(run_rounds, i);
  run_rounds(0);
  for (std::thread& h : helpers) h.join();
  for (const std::exception_ptr& e : errors) {
    if (e != nullptr) std::rethrow_exception(e);
  }
  merge_partitions();
  if (!stop) return kNever;
  ++parallel_stops_;
  // The rounds stopped between two: the serial replay goes on from the earliest next step, as
  // the next round would have begun there.
  if (device_.alternate_parallel > 0) {
    serial_steps_left_ = device_.alternate_parallel;
  } else {
    serial_steps_next_ = std::clamp(2 * serial_steps_next_, kFirstSerialSteps, kMostSerialSteps);
    serial_steps_left_ = serial_steps_next_;
  }
  return *std::min_element(next_steps.begin(), next_steps.end());
}

}  // namespace marlin::timing
