// TextTable: an aligned plain-text table for human output.
//
// Columns are right-aligned when every body cell in them looks like a number, left-aligned
// otherwise. Rendering never wraps; the caller keeps cells short.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace marlin::cli {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}

  // Adds one row; it must have as many cells as the header.
  void add_row(std::vector<std::string> cells);

  void print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Prints "key: value" pairs with the keys padded to one width.
void print_key_values(std::ostream& out,
                      const std::vector<std::pair<std::string, std::string>>& pairs);

}  // namespace marlin::cli
