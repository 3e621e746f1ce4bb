#include "model/timing/threadgroup_memory_banks.h"

#include <array>

#include "model/common/invariant.h"
#include "model/timing/classic_bank_model.h"

namespace marlin::timing {

BankAccessCost ThreadgroupMemoryBanks::access_affine(std::uint32_t first, std::uint32_t stride,
                                                     std::uint32_t bytes, std::uint32_t lanes) {
  std::array<LaneAccess, 64> accesses{};
  const LaneMask mask = affine_lanes(first, stride, bytes, lanes, accesses);
  return access(mask, std::span<const LaneAccess>(accesses.data(), lanes));
}

std::unique_ptr<ThreadgroupMemoryBanks> make_threadgroup_memory_banks(
    const model::ThreadgroupMemorySpec& spec) {
  switch (spec.bank_rule) {
    case model::BankRule::kClassic:
      return std::make_unique<ClassicBankModel>(spec);
  }
  MARLIN_CHECK(false, "every BankRule has a bank model");
  return nullptr;
}

}  // namespace marlin::timing
