// Formatting helpers shared by the executor's diagnostics. Private to sim/runtime.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <source_location>
#include <string>

#include "sim/runtime/lane_context.h"

namespace marlin::sim::detail {

inline std::string site_text(const std::source_location& s) {
  return fmt::format("{}:{}:{}", s.file_name(), s.line(), s.column());
}

inline std::string xyz(const std::array<std::uint32_t, 3>& v) {
  return fmt::format("({},{},{})", v[0], v[1], v[2]);
}

inline std::string region_text(const Region& r) {
  if (r.space == Space::kThreadgroup) return fmt::format("threadgroup memory '{}'", r.name);
  return fmt::format("{}buffer({}) '{}'", r.space == Space::kConstant ? "constant " : "",
                     r.buffer_id, r.name);
}

}  // namespace marlin::sim::detail
