// The out-of-line hooks the batched shim calls (batch_lane.h): they find the running batch
// through the current batch lane.
#include <stdexcept>

#include "sim/runtime/batch_lane.h"
#include "sim/runtime/batch_run.h"

namespace marlin::sim {

constinit thread_local BatchLane* current_batch_lane = nullptr;

namespace {
BatchLane& lane_or_throw() {
  BatchLane* lane = current_batch_lane;
  if (lane == nullptr) throw std::logic_error("a batched kernel's hook called outside a batch");
  return *lane;
}
}  // namespace

void batch_abort(const char* reason) { throw BatchAbort{reason}; }

BatchRegion batch_decl_region(std::uint32_t index) {
  return lane_or_throw().run->decl_region(index);
}

void batch_barrier(bool threadgroup, std::source_location site) {
  BatchLane& lane = lane_or_throw();
  lane.run->barrier(lane, threadgroup, site);
}

BatchMatrix& batch_matrix_slot(BatchSimdgroup& simd, std::uint32_t slot) {
  if (slot >= simd.matrices.size()) simd.matrices.resize(slot + 1);
  return simd.matrices[slot];
}

std::uint32_t batch_allocate_matrix_slot(BatchLane& lane) {
  const std::uint32_t slot = take_matrix_slot(lane.matrix_slots_used);
  if (slot == kNoMatrixSlot) batch_abort("more than 256 simdgroup_matrix objects alive in one thread");
  return slot;
}

void batch_free_matrix_slot(BatchLane& lane, std::uint32_t slot) {
  give_back_matrix_slot(lane.matrix_slots_used, slot);
}

void batch_matrix_op(const BatchMatrixOp& op) {
  BatchLane& lane = lane_or_throw();
  lane.run->matrix_op(lane, op);
}

}  // namespace marlin::sim
