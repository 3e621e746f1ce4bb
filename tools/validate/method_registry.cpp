// The method table: names, parameter schemas and dispatch; plus the shared parameter helpers.
#include <algorithm>
#include <map>
#include <regex>

#include "fmt/core.h"
#include "model/common/input_error.h"
#include "tools/validate/method_params.h"
#include "tools/validate/methods.h"

namespace marlin::validate {
namespace {

using detail::MethodFn;
using nlohmann::json;

enum class ParamType { kInt, kNumber, kString, kBool, kArray };

struct Param {
  const char* name;
  ParamType type;
  bool required;
};

struct MethodSpec {
  MethodFn fn;  // nullptr for simulation and not_checkable
  std::vector<Param> params;
};

constexpr ParamType kI = ParamType::kInt;
constexpr ParamType kN = ParamType::kNumber;
constexpr ParamType kS = ParamType::kString;
constexpr ParamType kB = ParamType::kBool;
constexpr ParamType kA = ParamType::kArray;

const std::map<std::string, MethodSpec>& method_table() {
  static const std::map<std::string, MethodSpec> table = {
      {"device_field", {detail::device_field, {{"field", kS, true}, {"device", kS, false}}}},
      {"device_expression",
       {detail::device_expression, {{"expression", kS, true}, {"device", kS, false}}}},
      {"arithmetic",
       {detail::arithmetic, {{"expression", kS, true}, {"integer_division", kB, false}}}},
      {"formula",
       {detail::formula,
        {{"expression", kS, true},
         {"reference", kS, true},
         {"cases", kA, true},
         {"integer_division", kB, false}}}},
      {"mma_op", {detail::mma_op, {{"quantity", kS, true}}}},
      {"mma_calls", {detail::mma_calls, {{"m", kI, true}, {"n", kI, true}, {"k", kI, true}}}},
      {"budget",
       {detail::budget,
        {{"tile", kS, true},
         {"variant", kS, true},
         {"part", kS, true},
         {"simdgroups", kI, false}}}},
      {"budget_ratio",
       {detail::budget_ratio,
        {{"tile", kS, true}, {"numerator", kS, true}, {"denominator", kS, true}}}},
      {"sg_layout",
       {detail::sg_layout,
        {{"tile", kS, true}, {"rows", kI, true}, {"cols", kI, true}, {"quantity", kS, true}}}},
      {"sg_block",
       {detail::sg_block,
        {{"sg_m_tiles", kI, true}, {"sg_n_tiles", kI, true}, {"quantity", kS, true}}}},
      {"iteration_intensity",
       {detail::iteration_intensity,
        {{"tile", kS, true},
         {"weights", kS, true},
         {"quantity", kS, true},
         {"group_size", kI, false}}}},
      {"weights_ratio",
       {detail::weights_ratio,
        {{"tile", kS, true},
         {"of", kS, true},
         {"numerator", kS, true},
         {"denominator", kS, true}}}},
      {"intensity_over_balance",
       {detail::intensity_over_balance, {{"tile", kS, true}, {"weights", kS, true}}}},
      {"occupancy",
       {detail::occupancy,
        {{"quantity", kS, true},
         {"tile", kS, false},
         {"variant", kS, false},
         {"threads", kI, false},
         {"threadgroup_memory_bytes", kI, false},
         {"device", kS, false}}}},
      {"occupancy_rule_bound",
       {detail::occupancy_rule_bound,
        {{"configs", kA, true}, {"threads", kI, false}, {"limit_bytes", kI, false}}}},
      {"gpu_parallelism",
       {detail::gpu_parallelism,
        {{"tile", kS, true}, {"variant", kS, true}, {"threads", kI, false}}}},
      {"gemm_tiles",
       {detail::gemm_tiles,
        {{"m", kI, true},
         {"n", kI, true},
         {"tm", kI, true},
         {"tn", kI, true},
         {"quantity", kS, true}}}},
      {"waves",
       {detail::waves,
        {{"quantity", kS, true},
         {"total", kI, false},
         {"m", kI, false},
         {"n", kI, false},
         {"tm", kI, false},
         {"tn", kI, false},
         {"slots", kI, false},
         {"tile", kS, false},
         {"variant", kS, false},
         {"threads", kI, false}}}},
      {"dequant_ops",
       {detail::dequant_ops,
        {{"tile", kS, true},
         {"kernel", kS, true},
         {"ops_per_element", kN, true},
         {"quantity", kS, true},
         {"simdgroups", kI, false},
         {"sg_m_tiles", kI, false},
         {"sg_n_tiles", kI, false}}}},
      {"a_load",
       {detail::a_load,
        {{"tile", kS, true},
         {"threads", kI, true},
         {"quantity", kS, true},
         {"thread", kI, false}}}},
      {"bank_conflicts",
       {detail::bank_conflicts,
        {{"stride_halves", kI, true}, {"rows", kI, false}, {"row_halves", kI, false}}}},
      {"layout_coverage",
       {detail::layout_coverage_check,
        {{"tile", kS, true},
         {"simdgroups", kI, true},
         {"sg_m_tiles", kI, true},
         {"sg_n_tiles", kI, true},
         {"row_offset", kS, true},
         {"col_offset", kS, true},
         {"quantity", kS, true},
         {"simd_id", kI, false}}}},
      {"fused_b_reloads",
       {detail::fused_b_reloads, {{"sg_m_tiles", kI, true}, {"sg_grid_rows", kI, true}}}},
      {"stripe_assignment",
       {detail::stripe_assignment,
        {{"m_tiles", kI, true},
         {"n_tiles", kI, true},
         {"threadgroups", kI, true},
         {"quantity", kS, true},
         {"k_parallel", kI, false},
         {"tg", kI, false}}}},
      {"round_robin", {detail::round_robin, {{"tiles", kI, true}, {"units", kI, true}}}},
      {"linearization_order",
       {detail::linearization_order,
        {{"row", kS, true}, {"col", kS, true}, {"m_tiles", kI, false}, {"n_tiles", kI, false}}}},
      {"shared_operand", {detail::shared_operand, {{"adjacent_along", kS, true}}}},
      {"k_parallel_decision",
       {detail::k_parallel_decision,
        {{"m", kI, true},
         {"n", kI, true},
         {"k", kI, true},
         {"tile_m", kI, true},
         {"tile_n", kI, true},
         {"tile_k", kI, true},
         {"quantity", kS, true},
         {"threshold", kI, false}}}},
      {"threadgroup_recommendation",
       {detail::threadgroup_recommendation,
        {{"device", kS, true}, {"per_core_min", kI, true}, {"per_core_max", kI, true}}}},
      {"fp4_value", {detail::fp4_value, {{"code", kS, true}}}},
      {"fp16_bits",
       {detail::fp16_bits, {{"quantity", kS, true}, {"code", kS, false}, {"bits", kS, false}}}},
      {"guide_agreement",
       {detail::guide_agreement, {{"guide", kA, true}, {"select_tile", kA, true}}}},
      {"simulation", {nullptr, {{"what", kS, true}}}},
      {"not_checkable", {nullptr, {{"reason", kS, true}}}},
  };
  return table;
}

bool has_type(const json& value, ParamType type) {
  switch (type) {
    case ParamType::kInt:
      return value.is_number_integer();
    case ParamType::kNumber:
      return value.is_number();
    case ParamType::kString:
      return value.is_string();
    case ParamType::kBool:
      return value.is_boolean();
    case ParamType::kArray:
      return value.is_array();
  }
  return false;
}

const char* type_name(ParamType type) {
  switch (type) {
    case ParamType::kInt:
      return "an integer";
    case ParamType::kNumber:
      return "a number";
    case ParamType::kString:
      return "a string";
    case ParamType::kBool:
      return "true or false";
    case ParamType::kArray:
      return "an array";
  }
  return "?";
}

}  // namespace

std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const auto& [name, spec] : method_table()) names.push_back(name);
  return names;
}

void validate_check(const std::string& claim_id, const json& check) {
  if (!check.is_object() || !check.contains("method") || !check["method"].is_string()) {
    throw InputError(fmt::format("claim {}: check needs a \"method\" string", claim_id));
  }
  const std::string method = check["method"].get<std::string>();
  const auto it = method_table().find(method);
  if (it == method_table().end()) {
    throw InputError(fmt::format("claim {}: unknown check method '{}'", claim_id, method));
  }
  const std::vector<Param>& params = it->second.params;
  for (const Param& param : params) {
    const auto value = check.find(param.name);
    if (value == check.end()) {
      if (param.required) {
        throw InputError(
            fmt::format("claim {}: method {} needs parameter '{}'", claim_id, method, param.name));
      }
      continue;
    }
    if (!has_type(*value, param.type)) {
      throw InputError(fmt::format("claim {}: {}.{} must be {}", claim_id, method, param.name,
                                   type_name(param.type)));
    }
  }
  for (const auto& [key, unused] : check.items()) {
    if (key == "method") continue;
    const bool known = std::any_of(params.begin(), params.end(),
                                   [&key = key](const Param& p) { return key == p.name; });
    if (!known) {
      throw InputError(
          fmt::format("claim {}: method {} has no parameter '{}'", claim_id, method, key));
    }
  }
}

MethodValue evaluate_check(const std::string& claim_id, const json& check,
                           const CheckContext& context) {
  validate_check(claim_id, check);
  const std::string method = check["method"].get<std::string>();
  if (method == "simulation") {
    MethodValue value;
    value.needs_simulation = true;
    value.cannot_check = "needs the timing model: " + check["what"].get<std::string>();
    return value;
  }
  if (method == "not_checkable") return detail::cannot_check(check["reason"].get<std::string>());
  try {
    return method_table().at(method).fn(check, context);
  } catch (const InputError& error) {
    throw InputError(fmt::format("claim {}: {}", claim_id, error.what()));
  }
}

namespace detail {

int param_int(const json& check, const char* name) { return check.at(name).get<int>(); }

double param_number(const json& check, const char* name) { return check.at(name).get<double>(); }

std::string param_string(const json& check, const char* name) {
  return check.at(name).get<std::string>();
}

int param_int_or(const json& check, const char* name, int fallback) {
  return check.contains(name) ? check.at(name).get<int>() : fallback;
}

analytic::Tile parse_tile(const std::string& text) {
  static const std::regex kTile(R"((\d+)x(\d+)(?:x(\d+))?)");
  std::smatch match;
  if (!std::regex_match(text, match, kTile)) {
    throw InputError(fmt::format("tile \"{}\" is not MxN or MxNxK", text));
  }
  analytic::Tile tile{std::stoi(match[1]), std::stoi(match[2]),
                      match[3].matched ? std::stoi(match[3]) : analytic::kMmaDim};
  analytic::validate_tile(tile);
  return tile;
}

MethodValue number_value(double value, std::string work) {
  MethodValue result;
  result.value = value;
  result.work = std::move(work);
  return result;
}

MethodValue text_value(std::string value, std::string work) {
  MethodValue result;
  result.value = std::move(value);
  result.work = std::move(work);
  return result;
}

MethodValue cannot_check(std::string why) {
  MethodValue result;
  result.cannot_check = std::move(why);
  return result;
}

}  // namespace detail
}  // namespace marlin::validate
