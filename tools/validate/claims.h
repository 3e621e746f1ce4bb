// The claims file: every numeric claim of the seed analysis documents, as data.
//
// Format (documented in docs/validation.md): a JSON object {"format": 1, "claims": [...]}; each
// claim has id, document, section, quote, claimed (a number, a string, or {"min", "max"} for a
// stated range), unit, device_dependent, an optional tolerance ({"abs": x} or {"rel": x}), an
// optional compare ("equal", "at_most", "at_least"), and check: {"method": name, ...params}.
// Contract: loading is strict. A missing or mistyped field, a duplicate id, an unknown method,
// a missing or unknown parameter throws InputError naming the file and the claim id.
#pragma once

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "nlohmann/json.hpp"

namespace marlin::validate {

// A stated range ("4-8", "~2-4 KB"): holds when the model value lies inside, bounds included.
struct ClaimedRange {
  double min = 0;
  double max = 0;
};

using ClaimedValue = std::variant<double, std::string, ClaimedRange>;

enum class Comparison {
  kEqual,    // |model - claimed| within the tolerance (strings: exact match)
  kAtMost,   // model <= claimed + tolerance ("up to 8")
  kAtLeast,  // model >= claimed - tolerance
};

struct Tolerance {
  double absolute = 0;  // allowed |model - claimed| in the claim's unit
  double relative = 0;  // allowed |model - claimed| / |claimed|
};

struct Claim {
  std::string id;        // stable, "<document>/<section>/<what>"
  std::string document;  // file name of the seed document
  std::string section;   // e.g. "2.3"
  std::string quote;     // exact short quote of the claim
  ClaimedValue claimed;
  std::string unit;  // unit of `claimed`; scales the model's base-unit value (see units())
  bool device_dependent = false;  // the value depends on the chosen device profile
  Tolerance tolerance;
  Comparison compare = Comparison::kEqual;
  std::string method;    // check.method
  nlohmann::json check;  // the whole check object, parameters included
};

struct ClaimSet {
  std::string source;  // file (or label) the claims came from
  std::vector<Claim> claims;
};

// The claims file shipped with the project (tools/validate/claims.json).
std::filesystem::path default_claims_file();

// Reads and validates a claims file; InputError on any problem.
ClaimSet load_claims(const std::filesystem::path& path);

// Validates claims text; `label` names it in messages.
ClaimSet parse_claims(const std::string& text, const std::string& label);

// Human rendering of a claimed value: "51.2", "0 1 3 / 0 2 3 / 1 2 4", "4-8".
std::string claimed_text(const ClaimedValue& value);

// Integral values without a fraction ("16384"), others with 6 significant digits ("25.6").
std::string format_number(double value);

// How many of the claim's unit make one base unit of the model (B, B/s, FLOP/s, FLOP, ...):
// "KiB" -> 1024, "MiB" -> 1048576, "GB/s" -> 1e9, "TFLOP/s" -> 1e12; every other unit 1.
double unit_scale(const std::string& unit);

}  // namespace marlin::validate
