// Parsing of dimensioned profile values ("32 KiB", "1578 MHz", "546 GB/s", "234 ns", "6 cycles").
//
// Contract: each parser takes the whole string (a number, optional spaces, a unit), accepts
// only the units it lists, and returns the value in base units (bytes, Hz, bytes/s, seconds,
// cycles). Anything else -- a missing or foreign unit, a negative, non-finite or too large
// number, a fraction where a whole number is required -- throws marlin::InputError with a
// message naming the expected kind of quantity and the offending text. The messages carry no
// file or JSON path; the profile loader adds those.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace marlin::model {

// A number and its unit as written, e.g. {48.0, "MiB"}; the unit may be empty.
struct Quantity {
  double number = 0;
  std::string unit;
};

// Splits "48 MiB" into {48, "MiB"}. The number is a plain decimal (optional sign, fraction
// and exponent); spaces between number and unit are optional. Throws InputError (naming
// `what`, e.g. "a byte size") when the text does not start with a number.
Quantity split_quantity(std::string_view text, std::string_view what);

// Bytes: B, kB/KB/MB/GB/TB (powers of 1000), KiB/MiB/GiB/TiB (powers of 1024). The result
// must be a whole number of bytes, at most 2^48.
std::int64_t parse_bytes(std::string_view text);

// Frequency in Hz: Hz, kHz, MHz, GHz.
double parse_frequency_hz(std::string_view text);

// Bandwidth in bytes per second: B/s, kB/s (KB/s), MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s.
double parse_bandwidth(std::string_view text);

// Time in seconds: s, ms, us (or µs), ns.
double parse_time_s(std::string_view text);

// Cycles: "N cycles" or "1 cycle"; N must be a whole number, at most 2^20.
std::int64_t parse_cycles(std::string_view text);

// Either cycles, or a time converted to cycles of a clock of `clock_hz`, rounded to the
// nearest cycle (halves away from zero): "234 ns" at 1.398 GHz -> round(327.132) = 327.
std::int64_t parse_latency_cycles(std::string_view text, double clock_hz);

}  // namespace marlin::model
