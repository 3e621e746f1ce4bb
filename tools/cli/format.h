// Number formatting shared by the human-readable reports.
#pragma once

#include <cstdint>
#include <string>

namespace marlin::cli {

std::string format_bytes(std::int64_t bytes);        // "4,608 B", "32 KiB", "48 MiB"
std::string format_count(std::int64_t value);        // "4,096"
std::string format_fixed(double value, int digits);  // "51.20"
std::string format_percent(double percent);          // "14.1%"
std::string format_rate(double per_second, const std::string& unit);  // "16.16 T" + unit
std::string format_seconds(double seconds);                           // "12.3 us", "1.20 ms"

}  // namespace marlin::cli
