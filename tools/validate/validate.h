// Checking a claim set against the model for one device, and the report of it.
//
// Contract: validate_claims never throws for a claim the model cannot evaluate (that claim is
// "cannot be checked" with the reason); it throws InputError naming the claim when the claims
// data itself is inconsistent (e.g. a string claim checked by a numeric method). Claims that
// name a chip (a "device" parameter) are checked against that chip's shipped profile.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/device/device_spec.h"
#include "nlohmann/json.hpp"
#include "tools/validate/claims.h"

namespace marlin::validate {

enum class Verdict { kHolds, kDoesNotHold, kCannotCheck };

std::string_view verdict_name(Verdict verdict);  // "holds", "does_not_hold", "cannot_check"

// The value a timing-model run produced for a claim; empty until the simulation fills it.
inline constexpr const char* kNotSimulatedYet = "not simulated yet";

struct ClaimResult {
  std::string id;
  std::string document;
  std::string section;
  std::string quote;
  std::string claimed;         // as rendered by claimed_text, without the unit
  ClaimedValue claimed_value;  // the claim's value and its tolerance, for simulated checks
  Tolerance tolerance;
  std::string unit;
  bool device_dependent = false;
  std::string method;
  Verdict verdict = Verdict::kCannotCheck;
  std::string model;                         // the model's value in the claim's unit ("" if none)
  std::optional<double> model_number;        // the same, when numeric
  std::string corrected;                     // the corrected value, when the claim does not hold
  std::string reason;                        // worked derivation, or why it cannot be checked
  bool needs_simulation = false;             // the timing model is the one to check it
  std::string simulation_what;               // what the timing model must measure (check.what)
  std::string simulated = kNotSimulatedYet;  // slot for the simulated value
};

struct ValidationReport {
  std::string device;  // profile name of the chosen device
  std::string device_description;
  std::string claims_source;
  std::vector<ClaimResult> results;  // in claims-file order
  int holds = 0;
  int does_not_hold = 0;
  int cannot_check = 0;
  int device_dependent = 0;  // claims whose value depends on the chosen device
};

// Loads the named shipped profile (default: model::load_device).
using DeviceLoader = std::function<model::DeviceSpec(const std::string&)>;

ValidationReport validate_claims(const model::DeviceSpec& device, const ClaimSet& claims,
                                 const DeviceLoader& load_named = {});

// The claims that do not hold, in file order.
std::vector<const ClaimResult*> corrections(const ValidationReport& report);

// Full Markdown report: summary, corrections, then one table per document.
void write_markdown(std::ostream& out, const ValidationReport& report);

// A few lines for the main job: counts, and each claim that does not hold with its correction.
void write_summary(std::ostream& out, const ValidationReport& report);

nlohmann::json to_json(const ValidationReport& report);

}  // namespace marlin::validate
