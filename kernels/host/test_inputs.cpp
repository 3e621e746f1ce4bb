#include "kernels/host/test_inputs.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <future>
#include <random>

#include "model/common/input_error.h"

namespace marlin::kernels {

std::uint64_t fresh_seed() {
  if (const char* text = std::getenv(kSeedEnvironmentVariable); text != nullptr && *text != 0) {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (end == nullptr || *end != 0) {
      throw InputError(std::string(kSeedEnvironmentVariable) + "='" + text +
                       "' is not a decimal integer");
    }
    return value;
  }
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

std::string seed_message(std::uint64_t seed) {
  return "seed " + std::to_string(seed) + " (rerun with " + kSeedEnvironmentVariable + "=" +
         std::to_string(seed) + ")";
}

double RandomInputs::uniform(double lo, double hi) { return canonical() * (hi - lo) + lo; }

std::vector<Half> RandomInputs::uniform_half(std::int64_t count, double lo, double hi) {
  std::vector<Half> values(static_cast<std::size_t>(count));
  for (Half& v : values) v = to_half(uniform(lo, hi));
  return values;
}

std::vector<float> RandomInputs::uniform_float(std::int64_t count, double lo, double hi) {
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& v : values) v = static_cast<float>(uniform(lo, hi));
  return values;
}

void RandomInputs::draw_polar_pairs(PolarPairs& pairs, std::int64_t n) {
  pairs.x.resize(static_cast<std::size_t>(n));
  pairs.y.resize(static_cast<std::size_t>(n));
  pairs.r2.resize(static_cast<std::size_t>(n));
  // Every candidate is stored at i, which moves on only when it is accepted: a rejection (a
  // fifth of the candidates, at random) costs no mispredicted branch.
  for (std::size_t i = 0; i < pairs.x.size();) {
    const double x = 2.0 * canonical() - 1.0;
    const double y = 2.0 * canonical() - 1.0;
    const double r2 = x * x + y * y;
    pairs.x[i] = x;
    pairs.y[i] = y;
    pairs.r2[i] = r2;
    i += static_cast<std::size_t>(r2 <= 1.0 && r2 != 0.0);
  }
}

std::vector<float> RandomInputs::normal_float(std::int64_t count, double stddev) {
  std::vector<float> values(static_cast<std::size_t>(count));
  normal_float(values, stddev);
  return values;
}

void RandomInputs::normal_float(std::span<float> values, double stddev) {
  // Marsaglia's polar method, each accepted pair giving two values (the second first), as
  // std::normal_distribution<double> does. The pairs are drawn block by block on this thread
  // (the engine's sequence); each block's logarithms and square roots run on a helper thread
  // while the next block is drawn. The values do not depend on the split.
  constexpr std::int64_t kBlockPairs = std::int64_t{1} << 18;
  const auto count = static_cast<std::int64_t>(values.size());
  const std::int64_t pairs = (count + 1) / 2;
  const auto transform = [values, count, stddev](const PolarPairs& block, std::int64_t first) {
    for (std::size_t i = 0; i < block.x.size(); ++i) {
      const double scale = std::sqrt(-2 * std::log(block.r2[i]) / block.r2[i]);
      const auto at = static_cast<std::size_t>(2 * first) + 2 * i;
      // The mean, 0, added as the distribution adds it.
      values[at] = static_cast<float>(block.y[i] * scale * stddev + 0.0);
      if (static_cast<std::int64_t>(at) + 1 < count) {
        values[at + 1] = static_cast<float>(block.x[i] * scale * stddev + 0.0);
      }
    }
  };
  std::array<PolarPairs, 2>& blocks = polar_blocks_;
  std::array<std::future<void>, 2> transformed;
  for (std::int64_t first = 0, b = 0; first < pairs; first += kBlockPairs, ++b) {
    const auto slot = static_cast<std::size_t>(b % 2);
    if (transformed[slot].valid()) transformed[slot].get();
    draw_polar_pairs(blocks[slot], std::min(kBlockPairs, pairs - first));
    if (pairs <= kBlockPairs) {
      transform(blocks[slot], first);
    } else {
      transformed[slot] = std::async(std::launch::async, transform, std::cref(blocks[slot]), first);
    }
  }
  for (std::future<void>& pending : transformed) {
    if (pending.valid()) pending.get();
  }
}

std::vector<std::uint8_t> RandomInputs::codes(std::int64_t count, int limit) {
  std::uniform_int_distribution<int> dist(0, limit - 1);
  std::vector<std::uint8_t> values(static_cast<std::size_t>(count));
  for (std::uint8_t& v : values) v = static_cast<std::uint8_t>(dist(engine_));
  return values;
}

std::int64_t RandomInputs::uniform_int(std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(engine_);
}

void poison(std::span<Half> buffer) {
  std::fill(buffer.begin(), buffer.end(), half_from_bits(kPoisonHalfBits));
}

void poison(std::span<float> buffer) {
  std::fill(buffer.begin(), buffer.end(), std::bit_cast<float>(kPoisonFloatBits));
}

std::int64_t count_poisoned(std::span<const Half> buffer) {
  return std::count_if(buffer.begin(), buffer.end(),
                       [](Half v) { return half_bits(v) == kPoisonHalfBits; });
}

std::int64_t count_poisoned(std::span<const float> buffer) {
  return std::count_if(buffer.begin(), buffer.end(),
                       [](float v) { return std::bit_cast<std::uint32_t>(v) == kPoisonFloatBits; });
}

}  // namespace marlin::kernels
