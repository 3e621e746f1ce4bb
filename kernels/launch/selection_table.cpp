#include "kernels/launch/selection_table.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

const char* variant_name(GemmVariant variant) {
  switch (variant) {
    case GemmVariant::kSeparate:
      return "separate";
    case GemmVariant::kFused:
      return "fused";
    case GemmVariant::kStriped:
      return "striped";
  }
  return "fused";
}

GemmVariant parse_variant(const std::string& text, const std::string& where) {
  for (GemmVariant v : {GemmVariant::kSeparate, GemmVariant::kFused, GemmVariant::kStriped}) {
    if (text == variant_name(v)) return v;
  }
  throw InputError(
      fmt::format("{}: variant: expected separate, fused or striped, got '{}'", where, text));
}

analytic::Tile parse_tile_text(const std::string& text, const std::string& where) {
  const std::optional<analytic::Tile> tile = find_marlin_tile(text);
  if (!tile) {
    throw InputError(fmt::format("{}: tile: the kernels are not compiled for '{}'", where, text));
  }
  return *tile;
}

std::string family_for(GemmVariant variant, WeightFormatKind format) {
  switch (format) {
    case WeightFormatKind::kFp4E2M1:
      return variant == GemmVariant::kSeparate  ? "marlin_gemm_fp4"
             : variant == GemmVariant::kStriped ? "marlin_gemm_fp4_striped"
                                                : "marlin_gemm_fused_fp4";
    case WeightFormatKind::kU4B8:
      return "marlin_gemm_fused_u4";
    case WeightFormatKind::kU4ZeroPoint:
      return "marlin_gemm_fused_u4zp";
    case WeightFormatKind::kFp16:
    case WeightFormatKind::kInt8:
      break;
  }
  throw InputError(
      fmt::format("no quantized GEMM kernel takes {} weights", weight_format_kind_name(format)));
}

}  // namespace

SelectionTable SelectionTable::analysis_default() {
  return SelectionTable(
      {{16, GemmVariant::kFused, {32, 128, 32}, 1},
       {64, GemmVariant::kFused, {64, 64, 32}, 1},
       {256, GemmVariant::kFused, {128, 64, 16}, 1},
       {std::numeric_limits<std::int64_t>::max(), GemmVariant::kFused, {128, 128, 16}, 1}});
}

SelectionTable SelectionTable::from_json(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("rules") || !json.at("rules").is_array()) {
    throw InputError("selection table: expected an object with a \"rules\" array");
  }
  std::vector<SelectionRule> rules;
  std::int64_t previous = 0;
  const nlohmann::json& list = json.at("rules");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = fmt::format("selection table: rules[{}]", i);
    const nlohmann::json& entry = list[i];
    if (!entry.is_object()) throw InputError(where + ": expected an object");
    for (const auto& [key, value] : entry.items()) {
      if (key != "max_m" && key != "variant" && key != "tile" && key != "k_parallel") {
        throw InputError(fmt::format("{}: unknown key '{}'", where, key));
      }
    }
    SelectionRule rule;
    try {
      if (entry.contains("max_m")) rule.max_m = entry.at("max_m").get<std::int64_t>();
      rule.variant = parse_variant(entry.at("variant").get<std::string>(), where);
      rule.tile = parse_tile_text(entry.at("tile").get<std::string>(), where);
      if (entry.contains("k_parallel")) rule.k_parallel = entry.at("k_parallel").get<int>();
    } catch (const nlohmann::json::exception& error) {
      throw InputError(fmt::format("{}: {}", where, error.what()));
    }
    if (rule.max_m <= previous) {
      throw InputError(fmt::format("{}: max_m must grow from rule to rule and be positive", where));
    }
    if (rule.k_parallel < 1 || (rule.k_parallel > 1 && rule.variant != GemmVariant::kStriped)) {
      throw InputError(fmt::format("{}: k_parallel above 1 needs the striped variant", where));
    }
    previous = rule.max_m;
    rules.push_back(rule);
  }
  if (rules.empty() || rules.back().max_m != std::numeric_limits<std::int64_t>::max()) {
    throw InputError("selection table: the last rule must have no max_m (it takes every M)");
  }
  return SelectionTable(std::move(rules));
}

nlohmann::json SelectionTable::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const SelectionRule& rule : rules_) {
    nlohmann::json entry = {{"variant", variant_name(rule.variant)},
                            {"tile", analytic::tile_name(rule.tile)},
                            {"k_parallel", rule.k_parallel}};
    if (rule.max_m != std::numeric_limits<std::int64_t>::max()) entry["max_m"] = rule.max_m;
    list.push_back(entry);
  }
  return {{"rules", list}};
}

const SelectionRule& SelectionTable::rule_for(std::int64_t m) const {
  for (const SelectionRule& rule : rules_) {
    if (m <= rule.max_m) return rule;
  }
  return rules_.back();
}

GemmKernel SelectionTable::select(std::int64_t m, WeightFormatKind format) const {
  const SelectionRule& rule = rule_for(m);
  GemmKernel kernel = find_gemm_kernel(family_for(rule.variant, format), rule.tile);
  if (!kernel.compiled) {
    // A refused double-buffered tile falls back to the fused kernel of the same tile.
    kernel = find_gemm_kernel(family_for(GemmVariant::kFused, format), rule.tile);
  }
  return kernel;
}

GemmKernel classic_matmul_for(std::int64_t m, std::int64_t n) {
  if (m < 1 || n < 1) {
    throw InputError(fmt::format("matmul sizes must be at least 1, got M={} N={}", m, n));
  }
  const std::int64_t side = std::min(m, n);
  const char* family = side < 16   ? "matmul_f16"
                       : side < 64 ? "matmul_tiled_f16"
                                   : "matmul_tiled_32x32_f16";
  return find_gemm_kernel(family, std::nullopt);
}

}  // namespace marlin::kernels
