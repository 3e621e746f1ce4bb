// ThreadgroupRun: executes one threadgroup of a launch on the calling host thread.
//
// Each thread is a Boost.Context fiber; fibers run in thread order until they reach a
// synchronization point (threadgroup barrier or simdgroup collective) or return. Then, per
// simdgroup, the lanes waiting at the collective site first in program order run it once,
// with the mask of those lanes (all live lanes in uniform code, the lanes that took the
// branch in divergent code). Matrix multiplies, fills and copies are the exception: lanes go
// on past them, and each runs once before the next synchronization of the lanes that passed
// it (DeferredMatrixOp). When every live thread of the threadgroup waits at the same
// threadgroup barrier it is released; threads waiting at a barrier that others never reach
// are barrier divergence: reported, and the threadgroup stops. Kernels without any
// synchronization run as a plain loop over threads. Private to sim/runtime.
#pragma once

#include <array>
#include <bit>
#include <boost/context/fiber.hpp>
#include <cstdint>
#include <source_location>
#include <vector>

#include "sim/runtime/binding.h"
#include "sim/runtime/deferred_matrix_log.h"
#include "sim/runtime/diagnostics.h"
#include "sim/runtime/fiber_stack_pool.h"
#include "sim/runtime/kernel_registry.h"
#include "sim/runtime/lane_context.h"
#include "sim/runtime/launch.h"
#include "sim/runtime/threadgroup_shadow.h"
#include "sim/runtime/trace.h"

namespace marlin::sim {

// Everything about a launch that is the same for all threadgroups.
struct LaunchPlan {
  const KernelInfo* kernel = nullptr;
  const LaunchSpec* spec = nullptr;
  std::vector<Region> buffers;              // by [[buffer(n)]] index (bytes 0: unbound)
  std::vector<Region> constant_buffers;     // the same buffers as constant-space regions
  std::vector<std::uint32_t> decl_offsets;  // arena offset of each kernel-scope decl
  std::vector<std::uint32_t> arg_offsets;   // arena offset of each [[threadgroup(n)]]
  std::vector<std::uint32_t> arg_bytes;     // length of each [[threadgroup(n)]]
  std::uint64_t arena_bytes = 0;
  std::uint32_t threads = 0;
  std::uint32_t simdgroups = 0;
};

// The regions of a threadgroup's kernel-scope declarations and [[threadgroup(n)]] arguments
// in its arena (laid out by the plan).
void arena_regions(const LaunchPlan& plan, std::byte* arena, std::vector<Region>& decls,
                   std::vector<Region>& args);

// Per host thread, reused by the threadgroups it runs.
struct WorkerState {
  explicit WorkerState(std::size_t stack_bytes) : stacks(stack_bytes) {}
  FiberStackPool stacks;
  std::vector<std::byte> arena;
  std::vector<std::byte> batch_arena;  // a batch's members' arenas (batch_run.h)
  ThreadgroupShadow shadow;
  // Lanes' event buffers, handed from one threadgroup to the next with their capacity.
  std::vector<std::vector<LaneEvent>> lane_events;
  // Simdgroups' deferred matrix op logs, handed on like lane_events.
  std::vector<DeferredMatrixLog> deferred_logs;
  // Per lane, the events of one deferred matrix op's segment while it is merged.
  std::array<std::vector<LaneEvent>, kSimdWidth> segment_events;
  // Trace sizes of the previous threadgroup of the same launch (ops, accesses per
  // simdgroup): the next one reserves as much, instead of growing its vectors step by step.
  // Keyed by the plan's and kernel's addresses; a stale match only misjudges a capacity.
  const void* trace_sizes_plan = nullptr;
  const void* trace_sizes_kernel = nullptr;
  std::vector<std::pair<std::size_t, std::size_t>> trace_sizes;
  // Trace vectors a trace sink gave back, per simdgroup: the next threadgroup builds its
  // traces in them (their capacity is kept; launch() drops them when the launch ends).
  std::vector<SimdgroupTrace> spare_traces;
};

// What one threadgroup produced.
struct ThreadgroupOutput {
  std::vector<Diagnostic> diagnostics;
  std::uint64_t diagnostics_dropped = 0;
  std::vector<SimdgroupTrace> traces;
  LaunchStats stats;
};

// kMatrixLoad: the lane went past a pending matrix load and waits for it to read memory
// before its own next access (ThreadgroupRun::wait_for_loads).
enum class WaitState : std::uint8_t { kRunnable, kSimd, kThreadgroup, kMatrixLoad, kDone };

// Pending ALU work checks of the arrival paths: they read only the kinds with work.
inline bool has_alu_work(const AluWork& work) { return work.kinds != 0; }
inline bool same_alu_work(const AluWork& a, const AluWork& b) {
  if (a.kinds != b.kinds || a.producer != b.producer) return false;
  std::uint32_t diff = 0;
  for (std::uint32_t kinds = a.kinds; kinds != 0; kinds &= kinds - 1) {
    const auto k = static_cast<std::size_t>(std::countr_zero(kinds));
    diff |= (a.count[k] ^ b.count[k]) | (a.chain[k] ^ b.chain[k]);
  }
  return diff == 0;
}

struct LaneRun {
  boost::context::fiber fiber;  // the lane, while suspended
  WaitState wait = WaitState::kRunnable;
  const CollectiveCall* call = nullptr;  // while waiting at a collective
  std::uint32_t barrier_flags = 0;
  std::source_location site;
  std::vector<LaneEvent> events;
  // Deferred matrix ops (DeferredMatrixOp): how many of the simdgroup's pending ones this
  // lane has reached, and the size of `events` up to which its work belongs to them.
  std::uint32_t deferred_reached = 0;
  std::uint32_t deferred_events_mark = 0;
};

struct SimdgroupRun {
  std::uint32_t index = 0;
  std::uint32_t first_lane = 0;
  std::uint32_t lane_count = 0;
  std::uint32_t sync_epoch = 0;
  // Lanes (bit l = lane l) waiting at a collective, at a threadgroup barrier, for pending
  // matrix loads, returned.
  std::uint32_t at_collective = 0;
  std::uint32_t at_barrier = 0;
  std::uint32_t at_load = 0;
  std::uint32_t done = 0;
  // Checked on arrival, while the lane's data is hot: `same_call` holds the waiting lanes
  // whose call equals *ref_call (a call in a waiting lane's frame).
  const CollectiveCall* ref_call = nullptr;
  std::uint32_t same_call = 0;
  // ALU work pending at arrival, for merge_events' fast path: lanes with no events and no
  // ALU work (`alu_idle`), and lanes with no events whose ALU work equals `alu_work`
  // (`alu_same`); the latter's own counters were cleared, the work lives here until merged.
  std::uint32_t alu_idle = 0;
  std::uint32_t alu_same = 0;
  AluWork alu_work;
  SimdExchange exchange;
  DeferredMatrixLog deferred;  // matrix ops lanes went past, not performed yet
  std::vector<MatrixStorage> matrices;
  std::vector<MemAccess> op_accesses;  // filled while a matrix op is applied
  SimdgroupTrace* trace = nullptr;
  SimdTraceBuilder builder{nullptr};
};

// How a threadgroup runs: on its own (traced when the launch traces), or as a translated copy
// of another (trace_translation.h) that runs only for its results and checks: no traces and
// no ALU counts, whose stats' alu_lane_ops stay zero for the caller to take from the other.
enum class ThreadgroupRole : std::uint8_t { kOwn, kCopy };

class ThreadgroupRun {
 public:
  ThreadgroupRun(const LaunchPlan& plan, WorkerState& worker, std::uint32_t linear_index,
                 ThreadgroupOutput& out, ThreadgroupRole role = ThreadgroupRole::kOwn);
  ThreadgroupRun(const ThreadgroupRun&) = delete;
  ThreadgroupRun& operator=(const ThreadgroupRun&) = delete;
  ~ThreadgroupRun();

  void run();

  // ---- hooks from the shim (via lane_context.h) ----
  const std::byte* collective(LaneContext& lane, const CollectiveCall& call, const void* operand,
                              std::size_t operand_bytes, std::uint32_t param);
  void barrier(LaneContext& lane, std::uint32_t flags, std::source_location site);
  void access(LaneContext& lane, const Region& region, const void* address, std::uint32_t bytes,
              AccessKind kind);
  void matrix_access(LaneContext& performer, const Region& region, const void* address,
                     std::uint32_t bytes, std::uint32_t row, AccessKind kind);
  const Region& decl_region(std::uint32_t index);
  MatrixStorage& matrix(SimdgroupRun& simd, std::uint32_t slot);

  // Records a fatal diagnostic and unwinds (throws LaneAbort).
  [[noreturn]] void fatal(Diagnostic d);
  // A barrier or collective reached in a kernel the pre-pass found none in (cold path).
  [[noreturn, gnu::noinline, gnu::cold]] void unseen_sync(LaneContext& lane, const char* what,
                                                          std::source_location site);

 private:
  void run_plain_loop();
  void run_fibers();
  static constexpr std::uint32_t kScheduler = 0xFFFFFFFFu;
  std::uint32_t next_runnable(std::uint32_t after) const;
  void file_continuation(boost::context::fiber&& from);
  boost::context::fiber take_target(std::uint32_t self, std::uint32_t target);
  void run_round();
  void yield(LaneContext& lane);
  void run_lane_body(std::uint32_t lane);
  bool resolve_simdgroup(SimdgroupRun& simd);
  // Matrix ops that need no waiting (DeferredMatrixOp): records or checks the lane's arrival.
  static bool deferrable(const CollectiveCall& call);
  void defer_matrix_op(LaneContext& lane, const CollectiveCall& call);
  // True if the lane went past a matrix load that has not read memory yet.
  bool past_pending_load(const LaneContext& lane) const {
    return runs_[lane.linear_id].deferred_reached > lane.simd->deferred.first_load;
  }
  // Suspends a lane past a pending load until the ops it reached are performed.
  void wait_for_loads(LaneContext& lane);
  // Once no lane of the simdgroup can run: performs the ops that the lanes waiting for loads
  // reached and lets them go on, unless a collective earlier in program order comes first.
  bool release_load_waiters(SimdgroupRun& simd);
  [[noreturn, gnu::cold]] void report_matrix_divergence(LaneContext& lane,
                                                        std::source_location site,
                                                        const DeferredMatrixOp& op, bool same_site);
  // Performs and traces the first `count` pending matrix ops of the simdgroup, in order.
  // Called before a synchronizing op resolves, with the most ops any of its lanes reached.
  void perform_deferred(SimdgroupRun& simd, std::uint32_t count);
  std::uint32_t deferred_reached_by(const SimdgroupRun& simd, std::uint32_t lanes_mask) const;
  // Merges into trace ops the work lanes did before pending op `index` (its ALU counts, and
  // the events of lanes with more); `consumed` holds each lane's events merged so far.
  void merge_deferred_segment(SimdgroupRun& simd, std::uint32_t index,
                              std::array<std::uint32_t, kSimdWidth>& consumed);
  bool release_barrier();
  void report_stuck();
  void flush_alu(LaneContext& lane);
  // Moves `work` (cleared) into ALU events appended to `events` (when tracing) and stats.
  void flush_counts(AluWork& work, std::vector<LaneEvent>& events);
  // One ALU op per kind (chunks of 65535) for `work` pending in every lane of `lanes_mask`,
  // and their stats: what merge() makes of such lanes.
  void append_uniform_alu(SimdgroupRun& simd, const AluWork& work, std::uint32_t lanes_mask);
  // merge_events' fast path: true if it did the whole merge.
  bool merge_uniform_alu(SimdgroupRun& simd, std::uint32_t lanes_mask);
  // Records an arriving lane's pending ALU work in its simdgroup (see SimdgroupRun).
  void note_arrival(SimdgroupRun& simd, LaneContext& lane);
  // Gives lanes of `lanes_mask` held in alu_same their counts back (before a slow merge).
  void restore_alu(SimdgroupRun& simd, std::uint32_t lanes_mask);
  // Flushes and merges the pending events of the lanes in `lanes_mask` (bit l = lane l).
  void merge_events(SimdgroupRun& simd, std::uint32_t lanes_mask = 0xFFFFFFFFu);
  void report(Diagnostic d);
  Diagnostic make_diagnostic(DiagnosticKind kind, const LaneContext* lane) const;
  void check_shadow(LaneContext& lane, const Region& region, std::uint32_t offset,
                    std::uint32_t bytes, AccessKind kind);
  // Reports a sanitizer verdict other than kOk for the access of `bytes` at `offset` of
  // `region`, at byte `offset + at` (once per kind and declaration).
  [[gnu::cold, gnu::noinline]] void report_shadow(LaneContext& lane, const Region& region,
                                                  std::uint32_t offset, std::uint32_t bytes,
                                                  std::size_t at, ShadowVerdict verdict,
                                                  std::uint32_t other, bool write);

  const LaunchPlan& plan_;
  WorkerState& worker_;
  ThreadgroupOutput& out_;
  std::array<std::uint32_t, 3> position_{};
  bool tracing_ = false;
  bool checking_ = false;
  bool fibers_ = false;
  bool aborted_ = false;
  std::vector<Region> decl_regions_;
  std::vector<Region> arg_regions_;
  boost::context::fiber scheduler_;  // the scheduler's continuation while lanes run
  std::uint32_t from_ = kScheduler;  // the context that performed the latest switch
  std::vector<LaneContext> lanes_;
  std::vector<LaneRun> runs_;
  std::vector<SimdgroupRun> simds_;
  std::vector<std::pair<DiagnosticKind, const Region*>> reported_;
  std::uint32_t done_threads_ = 0;
};

}  // namespace marlin::sim
