// SelectionTable: which kernel variant and tile configuration to run for a GEMM of M rows.
//
// A table is an ordered list of rules; the first rule whose max_m is at least M applies (the
// last rule should have no bound). The default table encodes the tile-sizing analysis's
// select_tile thresholds; `marlin-sim sweep` will write measured tables in the same JSON form:
//
//   {"rules": [{"max_m": 16, "variant": "fused", "tile": "32x128x32", "k_parallel": 1},
//              {"variant": "fused", "tile": "128x128x16"}]}
//
// Variants are "separate" (marlin_gemm_fp4), "fused" (marlin_gemm_fused_*) and "striped"
// (marlin_gemm_fp4_striped). Only the fused variant exists for u4 weights; a table entry of
// another variant falls back to the fused kernel of the same tile for them.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/host/weight_format.h"
#include "kernels/launch/kernel_catalog.h"

namespace marlin::kernels {

enum class GemmVariant { kSeparate, kFused, kStriped };

struct SelectionRule {
  std::int64_t max_m = std::numeric_limits<std::int64_t>::max();
  GemmVariant variant = GemmVariant::kFused;
  analytic::Tile tile;
  int k_parallel = 1;
};

class SelectionTable {
 public:
  // The analysis's thresholds: M <= 16 -> 32x128x32, M <= 64 -> 64x64x32, M <= 256 ->
  // 128x64x16, larger -> 128x128x16, all fused (the variant that fits every tile).
  static SelectionTable analysis_default();

  // Parses the JSON form above; throws InputError naming the rule and field that is wrong
  // (unknown variant, a tile the kernels are not compiled for, rules out of order, no rule
  // without a bound at the end, unknown keys).
  static SelectionTable from_json(const nlohmann::json& json);
  nlohmann::json to_json() const;

  const std::vector<SelectionRule>& rules() const { return rules_; }

  // The kernel for M rows of `format` weights; throws InputError for formats no GEMM kernel
  // takes (FP16 and INT8).
  GemmKernel select(std::int64_t m, WeightFormatKind format) const;
  const SelectionRule& rule_for(std::int64_t m) const;

 private:
  explicit SelectionTable(std::vector<SelectionRule> rules) : rules_(std::move(rules)) {}
  std::vector<SelectionRule> rules_;
};

// The classic FP16 matmul for an M x N output: the naive kernel when either side is below 16
// (a 16x16 tile would leave most threads idle), the 16x16 tiled kernel below 64, the 32x32
// tiled kernel from 64 up (each loaded element reused 32 times instead of 16).
GemmKernel classic_matmul_for(std::int64_t m, std::int64_t n);

}  // namespace marlin::kernels
