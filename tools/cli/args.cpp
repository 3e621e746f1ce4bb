#include "tools/cli/args.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <thread>

#include "model/common/input_error.h"
#include "model/device/units.h"

namespace marlin::cli {

std::int64_t parse_integer(const std::string& flag, const std::string& text, std::int64_t min,
                           std::int64_t max) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || ptr != end || value < min || value > max) {
    throw InputError(
        fmt::format("--{}: expected a whole number from {} to {}, got '{}'", flag, min, max, text));
  }
  return value;
}

unsigned host_cores() { return std::max(1u, std::thread::hardware_concurrency()); }

unsigned parse_host_threads(const std::string& text) {
  if (text.empty()) return host_cores();
  return static_cast<unsigned>(parse_integer("host-threads", text, 1, 256));
}

std::int64_t parse_byte_count(const std::string& flag, const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (plain) return parse_integer(flag, text, 0, std::int64_t{1} << 40);
  try {
    return model::parse_bytes(text);
  } catch (const InputError& error) {
    throw InputError(fmt::format("--{}: {}", flag, error.what()));
  }
}

analytic::Tile parse_tile(const std::string& flag, const std::string& text) {
  std::vector<std::int64_t> dims;
  std::size_t start = 0;
  while (true) {
    const std::size_t x = text.find('x', start);
    const std::string part = text.substr(start, x == std::string::npos ? x : x - start);
    const char* end = part.data() + part.size();
    std::int64_t value = 0;
    const auto [ptr, error] = std::from_chars(part.data(), end, value);
    if (part.empty() || error != std::errc() || ptr != end) {
      throw InputError(fmt::format(
          "--{}: expected MxNxK with whole numbers, e.g. 64x64x32, got '{}'", flag, text));
    }
    dims.push_back(value);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (dims.size() != 3) {
    throw InputError(fmt::format("--{}: expected three dimensions MxNxK, got '{}'", flag, text));
  }
  for (std::int64_t dim : dims) {
    if (dim <= 0 || dim % analytic::kMmaDim != 0 || dim > 4096) {
      throw InputError(fmt::format(
          "--{}: every tile dimension must be a positive multiple of 8 (the simdgroup matrix "
          "is 8x8) up to 4096, got '{}'",
          flag, text));
    }
  }
  return analytic::Tile{static_cast<int>(dims[0]), static_cast<int>(dims[1]),
                        static_cast<int>(dims[2])};
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

std::vector<std::int64_t> parse_integer_list(const std::string& flag, const std::string& text,
                                             std::int64_t min, std::int64_t max) {
  std::vector<std::int64_t> values;
  for (const std::string& part : split_list(text)) {
    values.push_back(parse_integer(flag, part, min, max));
  }
  return values;
}

}  // namespace marlin::cli
