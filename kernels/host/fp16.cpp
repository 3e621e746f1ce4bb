#include "kernels/host/fp16.h"

#include <cmath>
#include <string>

#include "model/common/input_error.h"

namespace marlin::kernels {

Half half_at_least(double value, const char* what) {
  if (!std::isfinite(value) || value < 0.0 || value > kHalfMax) {
    throw InputError(std::string(what) + ": value " + std::to_string(value) +
                     " is outside the FP16 range [0, 65504]");
  }
  Half nearest = to_half(value);
  if (static_cast<double>(nearest) < value) {
    // Positive finite FP16 values are ordered like their bit patterns: the next one up is +1.
    nearest = half_from_bits(static_cast<std::uint16_t>(half_bits(nearest) + 1));
  }
  return nearest;
}

std::vector<float> to_float_vector(std::span<const Half> values) {
  return std::vector<float>(values.begin(), values.end());
}

std::vector<Half> to_half_vector(std::span<const float> values) {
  std::vector<Half> result(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) result[i] = to_half(values[i]);
  return result;
}

}  // namespace marlin::kernels
