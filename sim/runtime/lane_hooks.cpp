// The out-of-line hooks the metal_stdlib shim calls (declared in lane_context.h and
// binding.h): they find the running threadgroup through the current lane.
#include <fmt/format.h>

#include <bit>
#include <stdexcept>

#include "sim/runtime/binding.h"
#include "sim/runtime/threadgroup_run.h"

namespace marlin::sim {

constinit thread_local LaneContext* current_lane = nullptr;

void on_access(LaneContext& lane, const Region& region, const void* address, std::uint32_t bytes,
               AccessKind kind) {
  lane.threadgroup->access(lane, region, address, bytes, kind);
}

void on_matrix_access(LaneContext& performer, const Region& region, const void* address,
                      std::uint32_t bytes, std::uint32_t row, AccessKind kind) {
  performer.threadgroup->matrix_access(performer, region, address, bytes, row, kind);
}

const Region& threadgroup_decl_region(std::uint32_t index, const char*) {
  LaneContext* lane = current_lane;
  if (lane == nullptr) throw std::logic_error("threadgroup memory used outside a kernel");
  return lane->threadgroup->decl_region(index);
}

MatrixStorage& matrix_slot(SimdgroupRun& simd, std::uint32_t slot) {
  LaneContext* lane = current_lane;
  if (lane == nullptr) throw std::logic_error("simdgroup_matrix used outside a kernel");
  return lane->threadgroup->matrix(simd, slot);
}

std::uint32_t allocate_matrix_slot(LaneContext& lane) {
  const std::uint32_t slot = take_matrix_slot(lane.matrix_slots_used);
  if (slot == kNoMatrixSlot) {
    throw std::runtime_error("more than 256 simdgroup_matrix objects alive in one thread");
  }
  return slot;
}

void free_matrix_slot(LaneContext& lane, std::uint32_t slot) {
  give_back_matrix_slot(lane.matrix_slots_used, slot);
}

[[noreturn]] void fail_binding(const char* param, std::uint32_t index, std::size_t needed,
                               std::size_t bound) {
  throw std::runtime_error(
      fmt::format("parameter '{}' [[buffer({})]] needs {} bytes but the "
                  "bound buffer has {}",
                  param, index, needed, bound));
}

}  // namespace marlin::sim
