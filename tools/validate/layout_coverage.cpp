#include "tools/validate/layout_coverage.h"

#include <set>

#include "fmt/core.h"
#include "model/common/input_error.h"
#include "model/common/join.h"
#include "tools/validate/expression.h"

namespace marlin::validate {
namespace {

constexpr int kMma = 8;

int offset_of(const LayoutCoverageQuery& query, const std::string& formula, int simd_id) {
  const Bindings bindings = {
      {"simd_id", simd_id}, {"SG_M_TILES", query.sg_m_tiles}, {"SG_N_TILES", query.sg_n_tiles}};
  return static_cast<int>(evaluate_expression(formula, bindings, /*integer_division=*/true));
}

}  // namespace

LayoutCoverage layout_coverage(const LayoutCoverageQuery& query) {
  if (query.tm < 1 || query.tn < 1 || query.simdgroups < 1 || query.sg_m_tiles < 1 ||
      query.sg_n_tiles < 1) {
    throw InputError("layout coverage needs positive tile, simdgroup and 8x8-tile counts");
  }
  LayoutCoverage result;
  result.tile_elements = std::int64_t{query.tm} * query.tn;
  std::vector<int> hits(static_cast<std::size_t>(result.tile_elements), 0);
  for (int s = 0; s < query.simdgroups; ++s) {
    SimdgroupBlock block;
    block.first_row = offset_of(query, query.row_offset, s);
    block.first_col = offset_of(query, query.col_offset, s);
    block.last_row = block.first_row + query.sg_m_tiles * kMma - 1;
    block.last_col = block.first_col + query.sg_n_tiles * kMma - 1;
    for (int r = block.first_row; r <= block.last_row; ++r) {
      for (int c = block.first_col; c <= block.last_col; ++c) {
        if (r < 0 || c < 0 || r >= query.tm || c >= query.tn) {
          ++result.outside_elements;
        } else {
          ++hits[static_cast<std::size_t>(r) * static_cast<std::size_t>(query.tn) +
                 static_cast<std::size_t>(c)];
        }
      }
    }
    result.blocks.push_back(block);
  }
  for (const int count : hits) {
    if (count > 0) ++result.covered_elements;
    if (count > 1) ++result.overlapping_elements;
  }
  result.coverage_percent = 100.0 * static_cast<double>(result.covered_elements) /
                            static_cast<double>(result.tile_elements);
  return result;
}

std::string row_range(const SimdgroupBlock& block) {
  return fmt::format("{}-{}", block.first_row, block.last_row);
}

std::string col_range(const SimdgroupBlock& block) {
  return fmt::format("{}-{}", block.first_col, block.last_col);
}

std::string offset_values(const LayoutCoverageQuery& query, bool rows) {
  std::set<int> values;
  for (int s = 0; s < query.simdgroups; ++s) {
    values.insert(offset_of(query, rows ? query.row_offset : query.col_offset, s));
  }
  std::string text;
  for (const int v : values) append_item(text, " or ", std::to_string(v));
  return text;
}

}  // namespace marlin::validate
