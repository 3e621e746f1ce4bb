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
  // Remembers each pattern's cost: moving every address by a multiple of banks x width
  // keeps each word's bank and which lanes share a word, so the cost depends only on
  // (first mod banks x width, stride, bytes, lanes). Only for a power-of-two banks x width
  // and runs whose bytes stay below 2^32 without wrapping; otherwise as the default.
  BankAccessCost access_affine(std::uint32_t first, std::uint32_t stride, std::uint32_t bytes,
                               std::uint32_t lanes) override;
  [[nodiscard]] const StatRegistry& stats() const override { return stats_; }

 private:
  // The cost of an access, without counting it; then counting one.
  BankAccessCost cost_of(LaneMask mask, std::span<const LaneAccess> lanes);
  void count(const BankAccessCost& cost);

  FixedDivisor banks_;
  FixedDivisor bank_width_;  // bytes
  std::int64_t bytes_per_cycle_;
  std::vector<std::uint64_t> words_;                       // reused: words touched by one access
  std::vector<std::int64_t> words_per_bank_;               // reused: distinct words per bank
  FixedDivisor period_;  // banks x width bytes
  // The costs of recent affine patterns, by key, direct-mapped (a pattern whose entry another
  // took is computed again: the cost depends on the key only).
  struct AffineEntry {
    std::uint64_t key = ~std::uint64_t{0};  // no pattern has this key
    BankAccessCost cost;
  };
  static constexpr std::size_t kAffineEntries = 256;
  std::vector<AffineEntry> affine_costs_;
  StatRegistry stats_;
  StatId accesses_;
  StatId wavefronts_;
  StatId conflict_passes_;
  StatId bytes_;
  StatId busy_cycles_;
};

}  // namespace marlin::timing
