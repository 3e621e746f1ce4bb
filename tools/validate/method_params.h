// Parameter access and shared helpers for the check methods (internal to tools/validate).
#pragma once

#include <string>

#include "model/analytic/tile.h"
#include "nlohmann/json.hpp"
#include "tools/validate/methods.h"

namespace marlin::validate::detail {

// Typed access to a check parameter; validate_check has already checked presence and type.
int param_int(const nlohmann::json& check, const char* name);
double param_number(const nlohmann::json& check, const char* name);
std::string param_string(const nlohmann::json& check, const char* name);
int param_int_or(const nlohmann::json& check, const char* name, int fallback);

// "64x64x32" -> {64, 64, 32}; "64x64" -> {64, 64, 8} (no K given). InputError otherwise.
analytic::Tile parse_tile(const std::string& text);

MethodValue number_value(double value, std::string work);
MethodValue text_value(std::string value, std::string work);
MethodValue cannot_check(std::string why);

// A method: computes the value of one claim.
using MethodFn = MethodValue (*)(const nlohmann::json& check, const CheckContext& context);

// The method groups, each in its own file.
MethodValue device_field(const nlohmann::json& check, const CheckContext& context);
MethodValue device_expression(const nlohmann::json& check, const CheckContext& context);
MethodValue arithmetic(const nlohmann::json& check, const CheckContext& context);
MethodValue formula(const nlohmann::json& check, const CheckContext& context);
MethodValue mma_op(const nlohmann::json& check, const CheckContext& context);
MethodValue mma_calls(const nlohmann::json& check, const CheckContext& context);

MethodValue budget(const nlohmann::json& check, const CheckContext& context);
MethodValue budget_ratio(const nlohmann::json& check, const CheckContext& context);
MethodValue sg_layout(const nlohmann::json& check, const CheckContext& context);
MethodValue sg_block(const nlohmann::json& check, const CheckContext& context);
MethodValue iteration_intensity(const nlohmann::json& check, const CheckContext& context);
MethodValue weights_ratio(const nlohmann::json& check, const CheckContext& context);
MethodValue intensity_over_balance(const nlohmann::json& check, const CheckContext& context);
MethodValue occupancy(const nlohmann::json& check, const CheckContext& context);
MethodValue occupancy_rule_bound(const nlohmann::json& check, const CheckContext& context);
MethodValue gpu_parallelism(const nlohmann::json& check, const CheckContext& context);
MethodValue gemm_tiles(const nlohmann::json& check, const CheckContext& context);
MethodValue waves(const nlohmann::json& check, const CheckContext& context);
MethodValue dequant_ops(const nlohmann::json& check, const CheckContext& context);
MethodValue a_load(const nlohmann::json& check, const CheckContext& context);
MethodValue bank_conflicts(const nlohmann::json& check, const CheckContext& context);

MethodValue layout_coverage_check(const nlohmann::json& check, const CheckContext& context);
MethodValue fused_b_reloads(const nlohmann::json& check, const CheckContext& context);
MethodValue stripe_assignment(const nlohmann::json& check, const CheckContext& context);
MethodValue round_robin(const nlohmann::json& check, const CheckContext& context);
MethodValue linearization_order(const nlohmann::json& check, const CheckContext& context);
MethodValue shared_operand(const nlohmann::json& check, const CheckContext& context);
MethodValue k_parallel_decision(const nlohmann::json& check, const CheckContext& context);
MethodValue threadgroup_recommendation(const nlohmann::json& check, const CheckContext& context);
MethodValue fp4_value(const nlohmann::json& check, const CheckContext& context);
MethodValue fp16_bits(const nlohmann::json& check, const CheckContext& context);
MethodValue guide_agreement(const nlohmann::json& check, const CheckContext& context);

}  // namespace marlin::validate::detail
