// Random inputs and poisoned outputs for checking kernels against the reference.
//
// Seeds: fresh_seed() gives a new seed every run (from std::random_device), unless the
// environment variable MARLIN_TEST_SEED holds a decimal seed, which reproduces a failing run.
// Tests print the seed on failure (seed_message() inside SCOPED_TRACE).
//
// Poison: output buffers are filled with a NaN pattern before a launch, so an element the
// kernel never writes stays NaN and fails relative_frobenius_error (which returns NaN).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/host/fp16.h"
#include "kernels/host/mersenne_twister_64.h"

namespace marlin::kernels {

// Environment variable that, when set to a decimal integer, replaces fresh seeds.
inline constexpr const char* kSeedEnvironmentVariable = "MARLIN_TEST_SEED";

// A fresh 64-bit seed (or the MARLIN_TEST_SEED override; InputError if it is not a number).
std::uint64_t fresh_seed();
// "seed 1234 (rerun with MARLIN_TEST_SEED=1234)".
std::string seed_message(std::uint64_t seed);

// Seeded generator of random matrices (row-major). The same seed gives the same values: those
// of std::uniform_real_distribution<double> and std::normal_distribution<double> (a fresh one
// per call) over std::mt19937_64 with that seed, as libstdc++ computes them.
class RandomInputs {
 public:
  explicit RandomInputs(std::uint64_t seed) : seed_(seed), engine_(seed) {}

  std::uint64_t seed() const { return seed_; }
  // count values uniform in [lo, hi), each rounded to FP16.
  std::vector<Half> uniform_half(std::int64_t count, double lo = -1.0, double hi = 1.0);
  // count values uniform in [lo, hi) in float.
  std::vector<float> uniform_float(std::int64_t count, double lo = -1.0, double hi = 1.0);
  // count values from N(0, stddev^2) in float (weight-like data with outliers).
  std::vector<float> normal_float(std::int64_t count, double stddev = 1.0);
  // The same draw into `out` (out.size() values). Calls of even sizes continue one another:
  // their values, followed by those of one more call, are those of a single call.
  void normal_float(std::span<float> out, double stddev = 1.0);
  // count codes uniform in [0, limit).
  std::vector<std::uint8_t> codes(std::int64_t count, int limit);
  // Uniform integer in [lo, hi].
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);

 private:
  // Accepted pairs of the polar method: x, y uniform in (-1, 1) with r2 = x^2 + y^2 in (0, 1].
  struct PolarPairs {
    std::vector<double> x, y, r2;
  };
  // The next n accepted pairs of the engine's sequence, into `pairs`.
  void draw_polar_pairs(PolarPairs& pairs, std::int64_t n);
  // Uniform in [0, 1) from one draw of the engine: the draw scaled by 2^-64 (exact), held below
  // 1, what std::generate_canonical<double, 53> computes from this engine without its per-call
  // long-double logarithms. The draw converts to double as static_cast<double> rounds it,
  // without the branch on its sign bit that conversion takes: both halves convert exactly and
  // their sum rounds once. Inline: the normal draws' loop calls it for every candidate.
  double canonical() {
    const std::uint64_t bits = engine_();
    const double u = (static_cast<double>(static_cast<std::uint32_t>(bits >> 32)) * 0x1p32 +
                      static_cast<double>(static_cast<std::uint32_t>(bits))) *
                     0x1p-64;
    return u < 1.0 ? u : std::nextafter(1.0, 0.0);
  }
  // Uniform in [lo, hi), as std::uniform_real_distribution<double> computes it.
  double uniform(double lo, double hi);

  std::uint64_t seed_;
  MersenneTwister64 engine_;  // std::mt19937_64's sequence
  // normal_float()'s two blocks of pairs, kept from call to call so that a draw made in many
  // calls does not allocate and fault in their memory each time.
  std::array<PolarPairs, 2> polar_blocks_;
};

// The poison patterns: quiet NaNs with a recognisable payload.
inline constexpr std::uint16_t kPoisonHalfBits = 0x7E5A;
inline constexpr std::uint32_t kPoisonFloatBits = 0x7FC5A5A5u;

void poison(std::span<Half> buffer);
void poison(std::span<float> buffer);
// Number of elements still holding the exact poison pattern.
std::int64_t count_poisoned(std::span<const Half> buffer);
std::int64_t count_poisoned(std::span<const float> buffer);

}  // namespace marlin::kernels
