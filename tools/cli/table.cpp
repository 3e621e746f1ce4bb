#include "tools/cli/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "model/common/invariant.h"

namespace marlin::cli {
namespace {

bool looks_numeric(const std::string& cell) {
  if (cell.empty() || cell == "-") return true;
  // Digits with separators, a sign, a percent sign or a trailing ratio mark ("1.60x").
  const std::size_t body = cell.back() == 'x' ? cell.size() - 1 : cell.size();
  if (body == 0) return false;
  return std::all_of(cell.begin(), cell.begin() + static_cast<std::ptrdiff_t>(body), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.' || c == ',' || c == '-' ||
           c == '%' || c == '+';
  });
}

}  // namespace

void TextTable::add_row(std::vector<std::string> cells) {
  MARLIN_CHECK(cells.size() == header_.size(), "table row width equals header width");
  rows_.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out) const {
  const std::size_t columns = header_.size();
  std::vector<std::size_t> width(columns, 0);
  std::vector<bool> numeric(columns, true);
  for (std::size_t c = 0; c < columns; ++c) width[c] = header_[c].size();
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < columns; ++c) {
      width[c] = std::max(width[c], row[c].size());
      numeric[c] = numeric[c] && looks_numeric(row[c]);
    }
  }
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < columns; ++c) {
      if (c > 0) line += "  ";
      line += numeric[c] ? fmt::format("{:>{}}", row[c], width[c])
                         : fmt::format("{:<{}}", row[c], width[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  print_row(header_);
  std::string rule;
  for (std::size_t c = 0; c < columns; ++c) {
    if (c > 0) rule += "  ";
    rule += std::string(width[c], '-');
  }
  out << rule << '\n';
  for (const auto& row : rows_) print_row(row);
}

void print_key_values(std::ostream& out,
                      const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::size_t width = 0;
  for (const auto& [key, value] : pairs) width = std::max(width, key.size());
  for (const auto& [key, value] : pairs) {
    out << fmt::format("{:<{}}  {}\n", key + ":", width + 1, value);
  }
}

}  // namespace marlin::cli
