#include "model/timing/threadgroup_memory_banks.h"

#include "model/common/invariant.h"
#include "model/timing/classic_bank_model.h"

namespace marlin::timing {

LaneMask affine_lanes(std::uint32_t first, std::uint32_t stride, std::uint32_t bytes,
                      std::uint32_t lanes, std::array<LaneAccess, 64>& out) {
  MARLIN_CHECK(lanes >= 1 && lanes <= 64, "an affine access has 1 to 64 lanes");
  for (std::uint32_t i = 0; i < lanes; ++i) out[i] = {first + i * stride, bytes};
  if (bytes == 0) return 0;
  return lanes == 64 ? ~LaneMask{0} : (LaneMask{1} << lanes) - 1;
}

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
