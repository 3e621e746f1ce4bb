#include "model/timing/threadgroup_memory_banks.h"

#include "model/common/invariant.h"
#include "model/timing/classic_bank_model.h"

namespace marlin::timing {

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
