#include "tools/cli/format.h"

#include <fmt/format.h>

#include <cmath>

namespace marlin::cli {

std::string format_count(std::int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return value < 0 ? "-" + grouped : grouped;
}

std::string format_bytes(std::int64_t bytes) {
  constexpr std::int64_t kKiB = 1024;
  constexpr std::int64_t kMiB = kKiB * kKiB;
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  if (bytes >= kKiB && bytes % kKiB == 0) return fmt::format("{} KiB", bytes / kKiB);
  return format_count(bytes) + " B";
}

std::string format_fixed(double value, int digits) { return fmt::format("{:.{}f}", value, digits); }

std::string format_percent(double percent) { return fmt::format("{:.1f}%", percent); }

std::string format_rate(double per_second, const std::string& unit) {
  const char* prefixes[] = {"", "K", "M", "G", "T", "P"};
  int index = 0;
  double value = per_second;
  while (std::fabs(value) >= 1000.0 && index < 5) {
    value /= 1000.0;
    ++index;
  }
  return fmt::format("{:.2f} {}{}", value, prefixes[index], unit);
}

std::string format_seconds(double seconds) {
  if (seconds >= 1.0) return fmt::format("{:.3f} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.3f} ms", seconds * 1e3);
  if (seconds >= 1e-6) return fmt::format("{:.2f} us", seconds * 1e6);
  return fmt::format("{:.1f} ns", seconds * 1e9);
}

}  // namespace marlin::cli
