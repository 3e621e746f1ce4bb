// Plain decoders for the number formats architecture.md describes: FP4 E2M1 (1 sign, 2 exponent
// bits with bias 1, 1 mantissa bit; exponent 0 is subnormal) and IEEE binary16.
#pragma once

#include <cstdint>
#include <string>

namespace marlin::validate {

// Value of a 4-bit E2M1 code given as four binary digits ("0101" -> 3.0). Throws InputError
// on anything but four 0/1 digits.
double fp4_e2m1_value(const std::string& code);

// The binary16 bit pattern written by the FP4 -> FP16 conversion (sign to bit 15, exponent
// rebiased by +14, mantissa bit to bit 9; zero and the subnormal 0.5 handled apart), as "0x3800".
std::string fp4_to_fp16_bits(const std::string& code);

// Value of a binary16 bit pattern; its biased exponent field (bits 10-14).
double fp16_value(std::uint16_t bits);
int fp16_exponent_field(std::uint16_t bits);

}  // namespace marlin::validate
