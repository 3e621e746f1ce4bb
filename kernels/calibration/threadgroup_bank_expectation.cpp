#include "kernels/calibration/threadgroup_bank_expectation.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

namespace marlin::calibration {

int expected_access_cycles(const model::ThreadgroupMemorySpec& spec, int stride) {
  constexpr int kLanes = 32;
  constexpr int kWordBytes = 4;
  // Distinct bank words per bank; a bank word may hold several 4-byte elements.
  std::map<std::int64_t, std::set<std::int64_t>> words_per_bank;
  for (int lane = 0; lane < kLanes; ++lane) {
    const std::int64_t byte = std::int64_t{lane} * stride * kWordBytes;
    const std::int64_t word = byte / spec.bank_width_bytes;
    words_per_bank[word % spec.banks].insert(word);
  }
  std::size_t passes = 1;
  for (const auto& [bank, words] : words_per_bank) passes = std::max(passes, words.size());
  const int transfer = (kLanes * kWordBytes + spec.bytes_per_cycle - 1) / spec.bytes_per_cycle;
  return std::max(static_cast<int>(passes), transfer);
}

std::string fmt_stride_name(int stride) {
  return "threadgroup_memory.stride" + std::to_string(stride) + "_penalty_cycles";
}

}  // namespace marlin::calibration
