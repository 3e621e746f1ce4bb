// Stall classes of the timing model: what a simdgroup slot of a core does in one core cycle,
// and the breakdown of simdgroup-slot-cycles by class.
//
// Contract: during a launch every simdgroup slot of every core is in exactly one class in every
// core cycle, so StallBreakdown::total() equals cores * slots per core * launch cycles. Each class
// is defined in docs/timing-model.md ("Stall classes").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace marlin::timing {

enum class StallClass : std::uint8_t {
  kIssuing,                // the simdgroup issued an instruction in this cycle
  kAluBusy,                // waiting on an ALU result or a busy ALU pipe
  kMatrixBusy,             // waiting on a matrix-multiply result or the pipe a multiply holds
  kMemoryWait,             // waiting on device memory (loads, atomics, stores at the end)
  kThreadgroupMemoryWait,  // waiting on threadgroup memory: latency, bank conflicts, bandwidth
  kBarrierWait,            // waiting at a threadgroup or simdgroup barrier
  kIssueWait,              // ready to issue, but the scheduler issued another simdgroup
  kIdle,                   // slot held but nothing to do, or empty while work remains
  kTail,                   // slot empty and no threadgroup left to dispatch
  kCount
};

inline constexpr std::size_t kStallClassCount = static_cast<std::size_t>(StallClass::kCount);

// Lower-case name of a class ("issuing", "alu_busy", ...).
std::string_view stall_class_name(StallClass stall);

// Simdgroup-slot-cycles by class (unit: simdgroup-slot core cycles).
struct StallBreakdown {
  std::array<std::int64_t, kStallClassCount> cycles{};

  void add(StallClass stall, std::int64_t amount) {
    cycles[static_cast<std::size_t>(stall)] += amount;
  }
  [[nodiscard]] std::int64_t operator[](StallClass stall) const {
    return cycles[static_cast<std::size_t>(stall)];
  }
  [[nodiscard]] std::int64_t total() const {
    std::int64_t sum = 0;
    for (const std::int64_t c : cycles) sum += c;
    return sum;
  }
  StallBreakdown& operator+=(const StallBreakdown& other) {
    for (std::size_t i = 0; i < kStallClassCount; ++i) cycles[i] += other.cycles[i];
    return *this;
  }
  friend bool operator==(const StallBreakdown&, const StallBreakdown&) = default;
};

}  // namespace marlin::timing
