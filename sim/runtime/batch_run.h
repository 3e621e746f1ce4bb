// BatchRun: runs up to kBatchWidth alike threadgroups of a launch as one, through their
// kernel's batched build (batch_lane.h), on the calling host thread. For the copies of a
// translated launch (docs/engine.md, "Copies in batches"): they run only for their outputs, so
// a batch neither traces nor counts nor checks races, and a batch that cannot run as one stops
// and says so, leaving its threadgroups to run one by one.
//
// Each thread position is one fiber for every member. Fibers run in thread order until they
// reach a barrier or a matrix load or store, or return; then each simdgroup whose live lanes
// all wait at the same simdgroup barrier or matrix op (equal operands) goes on, the op
// performed once, and when every live thread waits at the same threadgroup barrier it is
// released. Anything else (lanes of a simdgroup or threads of the threadgroup waiting at
// different places) stops the batch. A kernel without synchronization runs its threads one
// after the other, without fibers, as ThreadgroupRun runs it. Private to sim/runtime.
#pragma once

#include <boost/context/fiber.hpp>
#include <cstdint>
#include <source_location>
#include <span>
#include <vector>

#include "sim/runtime/batch_lane.h"
#include "sim/runtime/batch_registry.h"
#include "sim/runtime/threadgroup_run.h"

namespace marlin::sim {

// Where a matrix op was reached, to tell one op from another.
struct BatchSite {
  const char* file = nullptr;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

struct BatchSimdgroup {
  std::uint32_t first_lane = 0;
  std::uint32_t lane_count = 0;
  std::uint32_t done = 0;     // lanes (bit l = lane l) that returned
  std::uint32_t waiting = 0;  // lanes waiting at a simdgroup barrier or a matrix load or store
  // Matrix ops performed so far in program order, and the sites of the latest ones (the lanes
  // behind check theirs against them).
  static constexpr std::uint32_t kRecentOps = 256;
  std::uint32_t performed = 0;
  std::array<BatchSite, kRecentOps> recent{};
  std::vector<BatchMatrix> matrices;
};

class BatchRun {
 public:
  // `threadgroups`: 1 to kBatchWidth linear indices of alike threadgroups of the launch.
  BatchRun(const LaunchPlan& plan, WorkerState& worker, std::span<const std::uint32_t> threadgroups,
           BatchKernelEntry entry);
  BatchRun(const BatchRun&) = delete;
  BatchRun& operator=(const BatchRun&) = delete;
  ~BatchRun();

  // True when every member ran to its end; false when the batch stopped (its outputs are then
  // partly written, and the caller runs each threadgroup alone, which writes them all again).
  bool run();
  [[nodiscard]] const char* stop_reason() const { return stop_reason_; }
  [[nodiscard]] std::uint64_t fiber_resumes() const { return fiber_resumes_; }

  // ---- hooks from the batched shim (via batch_lane.h) ----
  [[nodiscard]] BatchRegion decl_region(std::uint32_t index) const;
  void barrier(BatchLane& lane, bool threadgroup, std::source_location site);
  void matrix_op(BatchLane& lane, const BatchMatrixOp& op);

 private:
  enum class Wait : std::uint8_t { kRunnable, kSimdgroup, kThreadgroup, kDone };
  struct LaneRun {
    boost::context::fiber fiber;
    Wait wait = Wait::kRunnable;
    BatchSite site;
    const BatchMatrixOp* op = nullptr;  // a matrix load or store it waits at (lane-owned)
  };
  static constexpr std::uint32_t kScheduler = 0xFFFFFFFFu;

  void stop(const char* reason);
  void run_lane_body(std::uint32_t index);
  std::uint32_t next_runnable(std::uint32_t after) const;
  void file_continuation(boost::context::fiber&& from);
  boost::context::fiber take_target(std::uint32_t self, std::uint32_t target);
  void yield(BatchLane& lane);
  bool resolve_simdgroup(BatchSimdgroup& simd);
  bool release_barrier();

  const LaunchPlan& plan_;
  WorkerState& worker_;
  BatchKernelEntry entry_;
  std::array<std::array<std::uint32_t, 3>, kBatchWidth> positions_{};
  std::ptrdiff_t arena_stride_ = 0;
  std::vector<Region> decl_regions_;  // member 0's
  std::vector<Region> arg_regions_;   // member 0's
  std::vector<BatchLane> lanes_;
  std::vector<LaneRun> runs_;
  std::vector<BatchSimdgroup> simds_;
  boost::context::fiber scheduler_;
  std::uint32_t from_ = kScheduler;
  std::uint32_t done_threads_ = 0;
  std::uint64_t fiber_resumes_ = 0;
  const char* stop_reason_ = nullptr;
};

}  // namespace marlin::sim
