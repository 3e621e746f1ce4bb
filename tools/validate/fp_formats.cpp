#include "tools/validate/fp_formats.h"

#include <cmath>

#include "fmt/core.h"
#include "model/common/input_error.h"

namespace marlin::validate {
namespace {

int parse_code(const std::string& code) {
  if (code.size() != 4 || code.find_first_not_of("01") != std::string::npos) {
    throw InputError(fmt::format("FP4 code \"{}\" is not four binary digits", code));
  }
  return std::stoi(code, nullptr, 2);
}

}  // namespace

double fp4_e2m1_value(const std::string& code) {
  const int bits = parse_code(code);
  const int sign = (bits >> 3) & 1;
  const int exponent = (bits >> 1) & 3;
  const int mantissa = bits & 1;
  const double magnitude =
      exponent == 0 ? mantissa * 0.5 : std::ldexp(1.0 + mantissa * 0.5, exponent - 1);
  return sign != 0 ? -magnitude : magnitude;
}

std::string fp4_to_fp16_bits(const std::string& code) {
  const int bits = parse_code(code);
  const unsigned sign = static_cast<unsigned>((bits >> 3) & 1) << 15;
  const unsigned exponent = static_cast<unsigned>((bits >> 1) & 3);
  const unsigned mantissa = static_cast<unsigned>(bits & 1);
  unsigned out = sign;
  if (exponent > 0) {
    out |= (exponent + 14U) << 10 | mantissa << 9;
  } else if (mantissa == 1) {
    out |= 14U << 10;  // 0.5 = 2^(14 - 15)
  }
  return fmt::format("0x{:04X}", out);
}

double fp16_value(std::uint16_t bits) {
  const int sign = (bits >> 15) & 1;
  const int exponent = fp16_exponent_field(bits);
  const int mantissa = bits & 0x3FF;
  double magnitude = 0;
  if (exponent == 0) {
    magnitude = std::ldexp(mantissa / 1024.0, -14);
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? HUGE_VAL : NAN;
  } else {
    magnitude = std::ldexp(1.0 + mantissa / 1024.0, exponent - 15);
  }
  return sign != 0 ? -magnitude : magnitude;
}

int fp16_exponent_field(std::uint16_t bits) { return (bits >> 10) & 0x1F; }

}  // namespace marlin::validate
