#include "kernels/host/test_inputs.h"

#include <algorithm>
#include <bit>
#include <cstdlib>

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

std::vector<Half> RandomInputs::uniform_half(std::int64_t count, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<Half> values(static_cast<std::size_t>(count));
  for (Half& v : values) v = to_half(dist(engine_));
  return values;
}

std::vector<float> RandomInputs::uniform_float(std::int64_t count, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& v : values) v = static_cast<float>(dist(engine_));
  return values;
}

std::vector<float> RandomInputs::normal_float(std::int64_t count, double stddev) {
  std::normal_distribution<double> dist(0.0, stddev);
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& v : values) v = static_cast<float>(dist(engine_));
  return values;
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
