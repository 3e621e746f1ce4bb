#include "model/timing/fixed_divisor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace marlin::timing {
namespace {

// Powers of two take the shift path, the others the division: both must agree with / and %.
TEST(FixedDivisorTest, AgreesWithDivisionForPowersOfTwoAndOthers) {
  const std::vector<std::uint64_t> divisors = {
      1, 2, 3, 4, 7, 32, 96, 128, 1000, 4096, (std::uint64_t{1} << 40), 0xFFFFFFFFFFFFFFFFull};
  const std::vector<std::uint64_t> values = {0,
                                             1,
                                             2,
                                             31,
                                             32,
                                             127,
                                             128,
                                             129,
                                             4095,
                                             1'000'001,
                                             (std::uint64_t{5} << 40) + 17,
                                             0xFFFFFFFFFFFFFFFFull};
  for (const std::uint64_t d : divisors) {
    const FixedDivisor divisor(d);
    EXPECT_EQ(divisor.divisor(), d);
    for (const std::uint64_t x : values) {
      EXPECT_EQ(divisor.quotient(x), x / d) << x << " / " << d;
      EXPECT_EQ(divisor.remainder(x), x % d) << x << " % " << d;
    }
  }
}

TEST(FixedDivisorTest, DefaultDividesByOne) {
  const FixedDivisor divisor;
  EXPECT_EQ(divisor.quotient(12345), 12345u);
  EXPECT_EQ(divisor.remainder(12345), 0u);
}

}  // namespace
}  // namespace marlin::timing
