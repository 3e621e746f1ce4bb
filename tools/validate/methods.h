// Check methods: how the value of a claim is computed from the model (or why it cannot be).
//
// Each method reads its parameters from the claim's `check` object and returns the model's
// value in base units (bytes, B/s, FLOP/s, FLOP, cycles, counts, percent) or as text (layouts,
// assignments, configuration names), with a one-line worked derivation. The list of methods,
// their parameters and formulas is in docs/validation.md; `method_names()` enumerates them.
#pragma once

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "model/device/device_spec.h"
#include "nlohmann/json.hpp"

namespace marlin::validate {

// What a method computed.
struct MethodValue {
  std::variant<std::monostate, double, std::string> value;  // monostate: cannot check
  std::string work;               // worked derivation, e.g. "2*32*128*32 / (2048 + 8192) = 25.6"
  std::string cannot_check;       // why not, when value is monostate
  bool needs_simulation = false;  // the claim is for the timing model to check
};

// The device the claims are checked against, and a loader for claims that name a chip.
struct CheckContext {
  const model::DeviceSpec* device = nullptr;
  std::function<const model::DeviceSpec&(const std::string&)> named_device;
};

// Names of all methods, sorted.
std::vector<std::string> method_names();

// Throws InputError "claim <id>: ..." when the method is unknown, a required parameter is
// missing, a parameter is unknown, or a parameter has the wrong JSON type.
void validate_check(const std::string& claim_id, const nlohmann::json& check);

// Runs the claim's method. Throws InputError (naming the claim) when parameters are invalid
// for the model (e.g. a tile that is not a multiple of 8).
MethodValue evaluate_check(const std::string& claim_id, const nlohmann::json& check,
                           const CheckContext& context);

}  // namespace marlin::validate
