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
  for (std::uint32_t w = 0; w < lane.matrix_slots_used.size(); ++w) {
    const std::uint64_t used = lane.matrix_slots_used[w];
    if (used != ~std::uint64_t{0}) {
      const auto bit = static_cast<std::uint32_t>(std::countr_one(used));
      lane.matrix_slots_used[w] |= std::uint64_t{1} << bit;
      return w * 64 + bit;
    }
  }
  throw std::runtime_error("more than 256 simdgroup_matrix objects alive in one thread");
}

void free_matrix_slot(LaneContext& lane, std::uint32_t slot) {
  if (slot < 256) lane.matrix_slots_used[slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
}

[[noreturn]] void fail_binding(const char* param, std::uint32_t index, std::size_t needed,
                               std::size_t bound) {
  throw std::runtime_error(
      fmt::format("parameter '{}' [[buffer({})]] needs {} bytes but the "
                  "bound buffer has {}",
                  param, index, needed, bound));
}

}  // namespace marlin::sim
