// Which output rows and columns of a threadgroup tile the simdgroups of a layout cover.
//
// Each simdgroup s owns an (sg_m_tiles * 8) x (sg_n_tiles * 8) block starting at
// (row_offset(s), col_offset(s)); the offsets are the kernel's own formulas in `simd_id`
// (SG_M_TILES and SG_N_TILES are bound too), evaluated with integer division. The result says
// how much of the tm x tn tile the union covers, and whether blocks overlap or leave the tile.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace marlin::validate {

struct LayoutCoverageQuery {
  int tm = 0;
  int tn = 0;
  int simdgroups = 0;
  int sg_m_tiles = 0;      // 8x8 tiles per simdgroup along M
  int sg_n_tiles = 0;      // 8x8 tiles per simdgroup along N
  std::string row_offset;  // e.g. "(simd_id / 2) * 16"
  std::string col_offset;  // e.g. "(simd_id % 2) * 32"
};

struct SimdgroupBlock {
  int first_row = 0;
  int last_row = 0;  // inclusive
  int first_col = 0;
  int last_col = 0;  // inclusive
};

struct LayoutCoverage {
  std::vector<SimdgroupBlock> blocks;     // one per simdgroup
  std::int64_t tile_elements = 0;         // tm * tn
  std::int64_t covered_elements = 0;      // distinct tile elements some simdgroup computes
  std::int64_t overlapping_elements = 0;  // tile elements computed by more than one simdgroup
  std::int64_t outside_elements = 0;      // block elements outside the tile
  double coverage_percent = 0;            // covered / tile * 100
};

// Throws InputError on non-positive sizes or a bad offset formula.
LayoutCoverage layout_coverage(const LayoutCoverageQuery& query);

// "0-15" style range rendering.
std::string row_range(const SimdgroupBlock& block);
std::string col_range(const SimdgroupBlock& block);

// The distinct values of one offset formula over all simdgroups, e.g. "0 or 16".
std::string offset_values(const LayoutCoverageQuery& query, bool rows);

}  // namespace marlin::validate
