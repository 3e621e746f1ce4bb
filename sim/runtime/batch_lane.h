// BatchLane: one thread of a batch of alike threadgroups that run as one (batch_run.h), and
// the interface between the batched metal_stdlib shim (marlin_msl/batch/) and the executor.
//
// A batch holds kBatchWidth threadgroups whose threads execute the same code (the copies of
// docs/engine.md, "Threadgroups by translation"): each fiber is one thread position of every
// member at once, and each value of the kernel holds one element per member (metal_batch::
// batched<T>). Members that must branch, index or synchronize differently cannot run as one:
// the shim and the executor then throw BatchAbort and the caller runs the batch's threadgroups
// one by one. A batch executes no tracing, counting or race checking; it only computes.
//
// Contract: while a batch runs on a host thread, `current_batch_lane` points at the lane
// being executed (nullptr otherwise).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <source_location>

#include "sim/runtime/lane_context.h"

namespace marlin::sim {

// Threadgroups per batch. A short batch repeats its first member in the spare places, which
// then compute and store what that member does (the kernels batched write each output once,
// from what they read, so the repeats change nothing).
inline constexpr std::uint32_t kBatchWidth = 16;

// Why a batch cannot run as one (a static string). Thrown through the kernel's frames.
struct BatchAbort {
  const char* reason = "";
};

class BatchRun;         // executor-private
struct BatchSimdgroup;  // executor-private

struct BatchLane {
  std::array<std::uint32_t, 3> thread_in_threadgroup{};
  std::array<std::uint32_t, 3> threads_per_threadgroup{};
  std::array<std::uint32_t, 3> threadgroups_per_grid{};
  // Per member: its threadgroup's position in the grid.
  const std::array<std::array<std::uint32_t, 3>, kBatchWidth>* threadgroup_in_grid = nullptr;
  std::uint32_t linear_id = 0;
  std::uint32_t simdgroup = 0;
  std::uint32_t lane = 0;
  std::uint32_t simdgroups_per_threadgroup = 0;
  // simdgroup_matrix slots in use (bit i = slot i), allocated in program order like
  // LaneContext::matrix_slots_used, and the matrix ops this lane reached so far.
  MatrixSlotSet matrix_slots_used{};
  std::uint32_t matrix_ops = 0;
  BatchRun* run = nullptr;
  BatchSimdgroup* simd = nullptr;
};

extern constinit thread_local BatchLane* current_batch_lane;

// Stops the batch (throws BatchAbort).
[[noreturn]] void batch_abort(const char* reason);

// A region of member 0 (a bound buffer or a threadgroup allocation); member b's is the same
// region `member_stride * b` bytes further (0 for buffers: every member sees the same one).
struct BatchRegion {
  const Region* region = nullptr;
  std::ptrdiff_t member_stride = 0;
};

// The region of kernel-scope threadgroup declaration `index`.
BatchRegion batch_decl_region(std::uint32_t index);

// threadgroup_barrier (every thread of the threadgroup) and simdgroup_barrier (every live lane
// of the simdgroup) at `site`.
void batch_barrier(bool threadgroup, std::source_location site);

// The 64 elements of simdgroup_matrix slot `slot` of the lane's simdgroup, per member.
using BatchMatrix = std::array<MatrixStorage, kBatchWidth>;
BatchMatrix& batch_matrix_slot(BatchSimdgroup& simd, std::uint32_t slot);
std::uint32_t batch_allocate_matrix_slot(BatchLane& lane);
void batch_free_matrix_slot(BatchLane& lane, std::uint32_t slot);

// A simdgroup matrix operation. Loads and stores read or write memory other lanes wrote or
// read, so they wait for every live lane of the simdgroup (whose descriptors must be equal
// byte for byte) and run once; multiplies, fills and copies touch only the simdgroup's
// matrices, so the first lane to reach one performs it at once and the others check that
// they reached the same one (by site). `descriptor` is lane-owned and zero-filled.
struct BatchMatrixOp {
  void (*apply)(const void* descriptor, BatchSimdgroup& simd) = nullptr;
  const void* descriptor = nullptr;
  std::size_t descriptor_bytes = 0;
  std::source_location site;
  bool waits = false;
};
void batch_matrix_op(const BatchMatrixOp& op);

}  // namespace marlin::sim
