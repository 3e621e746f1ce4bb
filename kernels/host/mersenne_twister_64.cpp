#include "kernels/host/mersenne_twister_64.h"

namespace marlin::kernels {
namespace {

constexpr std::size_t kShift = 156;  // the recurrence's middle word
constexpr std::uint64_t kMatrix = 0xB5026F5AA96619E9ULL;
constexpr std::uint64_t kUpper = ~std::uint64_t{0} << 31;
constexpr std::uint64_t kLower = ~kUpper;

// Word i of the next block from words i and i + 1 of this one and the word `middle`.
std::uint64_t twist(std::uint64_t word, std::uint64_t next, std::uint64_t middle) {
  const std::uint64_t x = (word & kUpper) | (next & kLower);
  return middle ^ (x >> 1) ^ ((x & 1) != 0 ? kMatrix : 0);
}

}  // namespace

MersenneTwister64::MersenneTwister64(std::uint64_t seed) {
  state_[0] = seed;
  for (std::size_t i = 1; i < kWords; ++i) {
    const std::uint64_t previous = state_[i - 1];
    state_[i] = 6364136223846793005ULL * (previous ^ (previous >> 62)) + i;
  }
}

void MersenneTwister64::regenerate() {
  // In three stretches, so that no index wraps: words below kWords - kShift read a middle word
  // of the old block, later ones one of the new block.
  std::size_t i = 0;
  for (; i < kWords - kShift; ++i) {
    state_[i] = twist(state_[i], state_[i + 1], state_[i + kShift]);
  }
  for (; i < kWords - 1; ++i) {
    state_[i] = twist(state_[i], state_[i + 1], state_[i + kShift - kWords]);
  }
  state_[kWords - 1] = twist(state_[kWords - 1], state_[0], state_[kShift - 1]);
  next_ = 0;
}

}  // namespace marlin::kernels
