#include "model/device/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include "model/common/input_error.h"

namespace marlin::model {
namespace {

constexpr double kMaxBytes = 281474976710656.0;  // 2^48
constexpr double kMaxCycles = 1048576.0;         // 2^20

// One accepted unit token and its factor to the base unit.
struct UnitScale {
  std::string_view name;
  double factor;
};

constexpr std::array kByteUnits{
    UnitScale{"B", 1.0},
    UnitScale{"kB", 1e3},
    UnitScale{"KB", 1e3},
    UnitScale{"MB", 1e6},
    UnitScale{"GB", 1e9},
    UnitScale{"TB", 1e12},
    UnitScale{"KiB", 1024.0},
    UnitScale{"MiB", 1048576.0},
    UnitScale{"GiB", 1073741824.0},
    UnitScale{"TiB", 1099511627776.0},
};
constexpr std::array kFrequencyUnits{UnitScale{"Hz", 1.0}, UnitScale{"kHz", 1e3},
                                     UnitScale{"MHz", 1e6}, UnitScale{"GHz", 1e9}};
constexpr std::array kBandwidthUnits{
    UnitScale{"B/s", 1.0},
    UnitScale{"kB/s", 1e3},
    UnitScale{"KB/s", 1e3},
    UnitScale{"MB/s", 1e6},
    UnitScale{"GB/s", 1e9},
    UnitScale{"TB/s", 1e12},
    UnitScale{"KiB/s", 1024.0},
    UnitScale{"MiB/s", 1048576.0},
    UnitScale{"GiB/s", 1073741824.0},
    UnitScale{"TiB/s", 1099511627776.0},
};
constexpr std::array kTimeUnits{UnitScale{"s", 1.0}, UnitScale{"ms", 1e-3}, UnitScale{"us", 1e-6},
                                UnitScale{"\u00b5s", 1e-6}, UnitScale{"ns", 1e-9}};
constexpr std::array kCycleUnits{UnitScale{"cycles", 1.0}, UnitScale{"cycle", 1.0}};

// Plain ASCII digits: the number format does not depend on the locale.
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Length of the leading run of digits of `text` from `pos`.
std::size_t digits_at(std::string_view text, std::size_t pos) {
  std::size_t end = pos;
  while (end < text.size() && is_digit(text[end])) ++end;
  return end - pos;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

enum class SplitResult { kOk, kNoNumber, kOutOfRange };

// Splits `text` into a number and a unit; see split_quantity.
SplitResult try_split(std::string_view text, Quantity& quantity) {
  const std::string_view trimmed = trim(text);
  std::size_t pos = 0;
  if (pos < trimmed.size() && (trimmed[pos] == '-' || trimmed[pos] == '+')) ++pos;
  const std::size_t int_digits = digits_at(trimmed, pos);
  pos += int_digits;
  std::size_t frac_digits = 0;
  if (pos < trimmed.size() && trimmed[pos] == '.') {
    frac_digits = digits_at(trimmed, pos + 1);
    pos += 1 + frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return SplitResult::kNoNumber;
  if (pos < trimmed.size() && (trimmed[pos] == 'e' || trimmed[pos] == 'E')) {
    std::size_t exp_pos = pos + 1;
    if (exp_pos < trimmed.size() && (trimmed[exp_pos] == '-' || trimmed[exp_pos] == '+')) {
      ++exp_pos;
    }
    const std::size_t exp_digits = digits_at(trimmed, exp_pos);
    if (exp_digits > 0) pos = exp_pos + exp_digits;  // otherwise 'e' starts the unit
  }
  // from_chars does not take a leading '+'.
  const std::size_t start = trimmed[0] == '+' ? 1 : 0;
  const auto result =
      std::from_chars(trimmed.data() + start, trimmed.data() + pos, quantity.number);
  if (result.ec != std::errc() || result.ptr != trimmed.data() + pos ||
      !std::isfinite(quantity.number)) {
    return SplitResult::kOutOfRange;
  }
  quantity.unit = std::string(trim(trimmed.substr(pos)));
  return SplitResult::kOk;
}

InputError out_of_range(std::string_view text, std::string_view what) {
  return InputError(fmt::format("expected {}, got '{}' (number out of range)", what, text));
}

// Parses `text` as a quantity whose unit is one of `units`; returns number * factor, which is
// finite and not negative. `what` names the quantity ("a frequency"), `unit_list` the units.
template <std::size_t N>
double parse_scaled(std::string_view text, const std::array<UnitScale, N>& units,
                    std::string_view what, std::string_view unit_list) {
  const auto fail = [&]() -> InputError {
    return InputError(fmt::format("expected {} ({}), got '{}'", what, unit_list, text));
  };
  Quantity quantity;
  const SplitResult split = try_split(text, quantity);
  if (split == SplitResult::kOutOfRange) throw out_of_range(text, what);
  if (split == SplitResult::kNoNumber) throw fail();
  for (const UnitScale& unit : units) {
    if (quantity.unit != unit.name) continue;
    if (quantity.number < 0) {
      throw InputError(fmt::format("expected {} that is not negative, got '{}'", what, text));
    }
    const double value = quantity.number * unit.factor;
    if (!std::isfinite(value)) {
      throw InputError(fmt::format("{} '{}' is too large", what, text));
    }
    return value;
  }
  throw fail();
}

}  // namespace

Quantity split_quantity(std::string_view text, std::string_view what) {
  Quantity quantity;
  switch (try_split(text, quantity)) {
    case SplitResult::kOk:
      return quantity;
    case SplitResult::kNoNumber:
      throw InputError(fmt::format("expected {} starting with a number, got '{}'", what, text));
    case SplitResult::kOutOfRange:
      break;
  }
  throw out_of_range(text, what);
}

std::int64_t parse_bytes(std::string_view text) {
  const double bytes =
      parse_scaled(text, kByteUnits, "a byte size", "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB");
  if (bytes > kMaxBytes) {
    throw InputError(fmt::format("byte size '{}' is too large (at most 2^48 B)", text));
  }
  if (bytes != std::floor(bytes)) {
    throw InputError(fmt::format("byte size '{}' is not a whole number of bytes", text));
  }
  return static_cast<std::int64_t>(bytes);
}

double parse_frequency_hz(std::string_view text) {
  return parse_scaled(text, kFrequencyUnits, "a frequency", "Hz, kHz, MHz, GHz");
}

double parse_bandwidth(std::string_view text) {
  return parse_scaled(text, kBandwidthUnits, "a bandwidth",
                      "B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s");
}

double parse_time_s(std::string_view text) {
  return parse_scaled(text, kTimeUnits, "a time", "s, ms, us, ns");
}

std::int64_t parse_cycles(std::string_view text) {
  const double cycles = parse_scaled(text, kCycleUnits, "a cycle count", "cycles");
  if (cycles > kMaxCycles) {
    throw InputError(fmt::format("cycle count '{}' is too large (at most 2^20)", text));
  }
  if (cycles != std::floor(cycles)) {
    throw InputError(fmt::format("cycle count '{}' is not a whole number of cycles", text));
  }
  return static_cast<std::int64_t>(cycles);
}

std::int64_t parse_latency_cycles(std::string_view text, double clock_hz) {
  // The unit decides: cycles are taken as they are, a time is converted with the clock.
  Quantity quantity;
  if (try_split(text, quantity) != SplitResult::kOk) quantity.unit.clear();
  const bool is_time = std::any_of(kTimeUnits.begin(), kTimeUnits.end(),
                                   [&](const UnitScale& u) { return u.name == quantity.unit; });
  const bool is_cycles = std::any_of(kCycleUnits.begin(), kCycleUnits.end(),
                                     [&](const UnitScale& u) { return u.name == quantity.unit; });
  if (is_cycles) return parse_cycles(text);
  if (!is_time) {
    throw InputError(fmt::format(
        "expected a latency in cycles or a time (cycles, s, ms, us, ns), got '{}'", text));
  }
  const double cycles = parse_time_s(text) * clock_hz;
  if (!(cycles <= kMaxCycles)) {
    throw InputError(fmt::format("latency '{}' is too large (at most 2^20 cycles)", text));
  }
  return std::llround(cycles);
}

}  // namespace marlin::model
