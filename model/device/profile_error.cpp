#include "model/device/profile_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace marlin::model {
namespace {

// Levenshtein distance (insertions, deletions, substitutions all cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

InputError profile_error(std::string_view file, std::string_view path, std::string_view message) {
  // Keep the message one printable line even when it quotes arbitrary input.
  constexpr std::size_t kMaxLength = 1000;
  const std::string raw = fmt::format("{}: {}: {}", file, path, message);
  std::string line;
  for (const char c : raw) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      line += fmt::format("\\x{:02x}", byte);
    } else {
      line += c;
    }
    if (line.size() > kMaxLength) {
      line += "...";
      break;
    }
  }
  return InputError(line);
}

std::string closest_key(std::string_view key, const std::vector<std::string>& candidates) {
  // Keys in a profile are short; very long input is not a typo of one.
  if (key.size() > 256) return {};
  const std::size_t limit = std::max<std::size_t>(2, key.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(key, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

InputError unknown_key_error(std::string_view file, std::string_view path, std::string_view key,
                             const std::vector<std::string>& candidates) {
  const std::string suggestion = closest_key(key, candidates);
  if (!suggestion.empty()) {
    return profile_error(file, path, fmt::format("unknown key; did you mean {}?", suggestion));
  }
  return profile_error(file, path,
                       fmt::format("unknown key; expected one of {}", fmt::join(candidates, ", ")));
}

std::string join_path(std::string_view section, std::string_view child) {
  constexpr std::size_t kMaxKeyLength = 100;
  std::string key = child.size() > kMaxKeyLength
                        ? std::string(child.substr(0, kMaxKeyLength)) + "..."
                        : std::string(child);
  if (section.empty()) return key;
  return fmt::format("{}.{}", section, key);
}

}  // namespace marlin::model
