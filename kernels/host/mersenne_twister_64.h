// The 64-bit Mersenne Twister (MT19937-64, Matsumoto and Nishimura), drawing the same sequence
// as std::mt19937_64 from the same seed. The library's engine generates its next block of 312
// words out of line and GCC does not inline its draw into a caller's loop; this one keeps the
// draw (one load and the tempering) inline and regenerates the block in a separate function.
// A UniformRandomBitGenerator, so the standard distributions accept it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace marlin::kernels {

class MersenneTwister64 {
 public:
  using result_type = std::uint64_t;
  static constexpr std::size_t kWords = 312;

  explicit MersenneTwister64(std::uint64_t seed);

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  result_type operator()() {
    if (next_ == kWords) regenerate();
    std::uint64_t y = state_[next_++];
    y ^= (y >> 29) & 0x5555555555555555ULL;
    y ^= (y << 17) & 0x71D67FFFEDA60000ULL;
    y ^= (y << 37) & 0xFFF7EEE000000000ULL;
    return y ^ (y >> 43);
  }

 private:
  // The next block of kWords words (the "twist").
  void regenerate();

  std::array<std::uint64_t, kWords> state_{};
  std::size_t next_ = kWords;
};

}  // namespace marlin::kernels
