// Dequantization work per main-loop iteration, counted the way the tile-sizing analysis states
// it (a fixed number of ALU ops per weight element: ~8 for FP4 E2M1, ~4 for INT4), for the two
// kernel structures:
//   separate: each of the tk x tn B elements of the tile is dequantized once into threadgroup
//             memory;
//   fused:    every simdgroup dequantizes one 8x8 B fragment per (kt, mi, ni) step of its inner
//             loop (tile-sizing-m4max.md §8.2), so a fragment is redone for each of its sg_m_tiles
//             row blocks and by each simdgroup row of the layout.
// The per-element op counts are the document's; only an executed kernel can confirm them.
#pragma once

#include <cstdint>

#include "model/analytic/tile.h"

namespace marlin::validate {

enum class DequantKernel { kSeparate, kFused };

struct DequantQuery {
  analytic::Tile tile;
  DequantKernel kernel = DequantKernel::kSeparate;
  double ops_per_element = 0;
  int simdgroups = 4;  // fused: simdgroups per threadgroup
  int sg_m_tiles = 0;  // fused: 8x8 row blocks per simdgroup
  int sg_n_tiles = 0;  // fused: 8x8 column blocks per simdgroup
};

struct DequantCount {
  std::int64_t distinct_elements = 0;     // tk * tn
  std::int64_t dequantized_elements = 0;  // elements converted per iteration (with repeats)
  double ops = 0;                         // dequantized_elements * ops_per_element
  std::int64_t useful_flops = 0;          // 2 * tm * tn * tk
  double overhead_percent = 0;            // ops / useful_flops * 100
};

// Throws InputError on a bad tile, negative op count or (fused) non-positive layout counts.
DequantCount count_dequant(const DequantQuery& query);

}  // namespace marlin::validate
