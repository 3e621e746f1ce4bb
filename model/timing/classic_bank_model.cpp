#include "model/timing/classic_bank_model.h"

#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "model/common/input_error.h"
#include "model/timing/distinct_sorted.h"

namespace marlin::timing {
namespace {

// The value of a positive threadgroup_memory field; InputError otherwise.
std::uint64_t require_positive(int value, const char* field) {
  if (value <= 0) {
    throw InputError(std::string("threadgroup_memory.") + field + " must be positive (got " +
                     std::to_string(value) + ")");
  }
  return static_cast<std::uint64_t>(value);
}

}  // namespace

ClassicBankModel::ClassicBankModel(const model::ThreadgroupMemorySpec& spec)
    : banks_(require_positive(spec.banks, "banks")),
      bank_width_(require_positive(spec.bank_width_bytes, "bank_width_bytes")),
      bytes_per_cycle_(
          static_cast<std::int64_t>(require_positive(spec.bytes_per_cycle, "bytes_per_cycle"))),
      period_(banks_.divisor() * bank_width_.divisor()) {
  words_.reserve(256);
  affine_costs_.resize(kAffineEntries);
  words_per_bank_.assign(banks_.divisor(), 0);
  accesses_ = stats_.add_counter("accesses", "simdgroup accesses",
                                 "threadgroup-memory instructions with at least one active lane");
  wavefronts_ =
      stats_.add_counter("wavefronts", "bank passes", "sum over accesses of the bank passes");
  conflict_passes_ = stats_.add_counter(
      "conflict_passes", "bank passes",
      "passes beyond the first caused by bank conflicts (wavefronts - 1 per access)");
  bytes_ = stats_.add_counter("bytes", "bytes", "bytes requested by active lanes");
  busy_cycles_ = stats_.add_counter("busy_cycles", "core cycles",
                                    "cycles the threadgroup-memory pipe is occupied");
}

BankAccessCost ClassicBankModel::cost_of(LaneMask mask, std::span<const LaneAccess> lanes) {
  words_.clear();
  std::int64_t bytes = 0;
  for_each_active_lane(mask, lanes, [&](const LaneAccess& lane) {
    bytes += lane.bytes;
    const std::uint64_t first = bank_width_.quotient(lane.address);
    const std::uint64_t last = bank_width_.quotient(lane.address + lane.bytes - 1);
    for (std::uint64_t w = first; w <= last; ++w) {
      words_.push_back(w);
    }
  });
  if (words_.empty()) {
    return BankAccessCost{};
  }
  // Broadcast: a word counts once however many lanes read it.
  make_distinct_sorted(words_);
  std::fill(words_per_bank_.begin(), words_per_bank_.end(), 0);
  std::int64_t wavefronts = 0;
  for (const std::uint64_t w : words_) {
    wavefronts =
        std::max(wavefronts, ++words_per_bank_[static_cast<std::size_t>(banks_.remainder(w))]);
  }
  BankAccessCost cost;
  cost.wavefronts = wavefronts;
  cost.bytes = bytes;
  cost.bandwidth_cycles = Cycles((bytes + bytes_per_cycle_ - 1) / bytes_per_cycle_);
  cost.busy_cycles = later(Cycles(wavefronts), cost.bandwidth_cycles);
  return cost;
}

void ClassicBankModel::count(const BankAccessCost& cost) {
  if (cost.wavefronts == 0) return;  // no active lane
  stats_.increment(accesses_);
  stats_.add(wavefronts_, cost.wavefronts);
  stats_.add(conflict_passes_, cost.wavefronts - 1);
  stats_.add(bytes_, cost.bytes);
  stats_.add(busy_cycles_, cost.busy_cycles.count());
}

BankAccessCost ClassicBankModel::access(LaneMask mask, std::span<const LaneAccess> lanes) {
  const BankAccessCost cost = cost_of(mask, lanes);
  count(cost);
  return cost;
}

BankAccessCost ClassicBankModel::access_affine(std::uint32_t first, std::uint32_t stride,
                                               std::uint32_t bytes, std::uint32_t lanes) {
  // The invariance needs the lanes' bytes to be first + i * stride exactly: no lane wraps
  // around 2^32 (the trace's offsets are 32-bit) and no lane's bytes reach past it.
  const std::int64_t step = static_cast<std::int32_t>(stride);
  const std::int64_t last = std::int64_t{first} + step * (std::int64_t{lanes} - 1);
  const std::int64_t top = std::max<std::int64_t>(first, last) + bytes;
  if (!std::has_single_bit(period_.divisor()) || period_.divisor() >= (1u << 16) || bytes > 255 ||
      std::min<std::int64_t>(first, last) < 0 || top > (std::int64_t{1} << 32)) {
    return ThreadgroupMemoryBanks::access_affine(first, stride, bytes, lanes);
  }
  const std::uint64_t key = (period_.remainder(first) << 48) | (std::uint64_t{stride} << 16) |
                            (std::uint64_t{bytes} << 8) | lanes;
  AffineEntry& entry =
      affine_costs_[static_cast<std::size_t>((key * 0x9E3779B97F4A7C15u) >> 56) % kAffineEntries];
  if (entry.key != key) {
    std::array<LaneAccess, 64> accesses{};
    const LaneMask mask = affine_lanes(first, stride, bytes, lanes, accesses);
    entry.cost = cost_of(mask, std::span<const LaneAccess>(accesses.data(), lanes));
    entry.key = key;
  }
  count(entry.cost);
  return entry.cost;
}

}  // namespace marlin::timing
