// The "classic" bank rule (BankRule::kClassic), as on M1-class cores and most GPUs.
//
// A lane's bytes [address, address + bytes) cover words of bank_width_bytes; word w lives in
// bank (w mod banks). Lanes reading the same word are served together (broadcast); distinct
// words in the same bank take one pass each. The access takes
//   wavefronts       = max over banks of (distinct words in that bank), at least 1
//   bandwidth_cycles = ceil(sum of active lanes' bytes / bytes_per_cycle)
//   busy_cycles      = max(wavefronts, bandwidth_cycles)
// See docs/timing-model.md, "Threadgroup-memory banks".
#pragma once

#include <cstdint>
#include <vector>

#include "model/timing/fixed_divisor.h"
#include "model/timing/threadgroup_memory_banks.h"

namespace marlin::timing {

class ClassicBankModel final : public ThreadgroupMemoryBanks {
 public:
  explicit ClassicBankModel(const model::ThreadgroupMemorySpec& spec);

  BankAccessCost access(LaneMask mask, std::span<const LaneAccess> lanes) override;
  [[nodiscard]] const StatRegistry& stats() const override { return stats_; }

 private:
  FixedDivisor banks_;
  FixedDivisor bank_width_;  // bytes
  std::int64_t bytes_per_cycle_;
  std::vector<std::uint64_t> words_;          // reused: words touched by one access
  std::vector<std::int64_t> words_per_bank_;  // reused: distinct words per bank
  StatRegistry stats_;
  StatId accesses_;
  StatId wavefronts_;
  StatId conflict_passes_;
  StatId bytes_;
  StatId busy_cycles_;
};

}  // namespace marlin::timing
