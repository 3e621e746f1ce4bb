// Division of unsigned 64-bit values by a positive divisor fixed at construction, as a shift
// and a mask when the divisor is a power of two (line sizes, bank widths and counts, cache
// sets usually are). The replay divides every lane address this way; a 64-bit hardware
// division takes tens of cycles.
#pragma once

#include <bit>
#include <cstdint>

#include "model/common/invariant.h"

namespace marlin::timing {

class FixedDivisor {
 public:
  FixedDivisor() : FixedDivisor(1) {}
  explicit FixedDivisor(std::uint64_t divisor)
      : divisor_(divisor), shift_(std::has_single_bit(divisor) ? std::countr_zero(divisor) : -1) {
    MARLIN_CHECK(divisor > 0, "a divisor is positive");
  }

  [[nodiscard]] std::uint64_t quotient(std::uint64_t x) const {
    return shift_ >= 0 ? x >> shift_ : x / divisor_;
  }
  [[nodiscard]] std::uint64_t remainder(std::uint64_t x) const {
    return shift_ >= 0 ? x & (divisor_ - 1) : x % divisor_;
  }
  [[nodiscard]] std::uint64_t divisor() const { return divisor_; }

 private:
  std::uint64_t divisor_;
  int shift_;  // log2(divisor) for a power of two, else -1
};

}  // namespace marlin::timing
