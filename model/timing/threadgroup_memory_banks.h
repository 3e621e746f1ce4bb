// Threadgroup-memory bank model: how long one simdgroup access to threadgroup memory occupies
// the core's threadgroup-memory pipe.
//
// Interface plus a factory that picks the implementation named by the profile
// (ThreadgroupMemorySpec::bank_rule). Implementations are called once per simdgroup access;
// they loop over lanes internally and do not allocate after warm-up.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "model/device/device_spec.h"
#include "model/timing/cycles.h"
#include "model/timing/lane_access.h"
#include "model/timing/stats.h"

namespace marlin::timing {

// Cost of one simdgroup access. An access with no active lane costs nothing (all zero).
struct BankAccessCost {
  std::int64_t wavefronts = 0;  // bank passes: the largest number of distinct words in a bank
  std::int64_t bytes = 0;       // bytes requested by the active lanes
  Cycles bandwidth_cycles;      // ceil(bytes / bytes_per_cycle)
  Cycles busy_cycles;           // max(wavefronts, bandwidth_cycles): pipe occupancy
};

class ThreadgroupMemoryBanks {
 public:
  virtual ~ThreadgroupMemoryBanks() = default;

  // Cost of one access; lane addresses are byte offsets in the threadgroup's memory.
  virtual BankAccessCost access(LaneMask mask, std::span<const LaneAccess> lanes) = 0;
  // The same for `lanes` (1 to 64) consecutive lanes, lane i accessing `bytes` at
  // first + i * stride (modulo 2^32, as the trace stores affine runs); the default builds
  // the lanes and calls access(), implementations may remember costs by pattern.
  virtual BankAccessCost access_affine(std::uint32_t first, std::uint32_t stride,
                                       std::uint32_t bytes, std::uint32_t lanes);

  [[nodiscard]] virtual const StatRegistry& stats() const = 0;
};

// Builds the model named by spec.bank_rule. Throws InputError on a non-positive bank count,
// bank width or bytes per cycle.
std::unique_ptr<ThreadgroupMemoryBanks> make_threadgroup_memory_banks(
    const model::ThreadgroupMemorySpec& spec);

}  // namespace marlin::timing
