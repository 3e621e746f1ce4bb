#include "tools/validate/claims.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "fmt/core.h"
#include "model/common/input_error.h"
#include "tools/validate/methods.h"

#ifndef MARLIN_CLAIMS_FILE
#define MARLIN_CLAIMS_FILE "tools/validate/claims.json"
#endif

namespace marlin::validate {
namespace {

using nlohmann::json;

const std::set<std::string> kClaimKeys = {"id",      "document", "section",          "quote",
                                          "claimed", "unit",     "device_dependent", "tolerance",
                                          "compare", "check"};

std::string require_string(const json& object, const std::string& key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string() || it->get<std::string>().empty()) {
    throw InputError(fmt::format("{}: '{}' must be a non-empty string", where, key));
  }
  return it->get<std::string>();
}

ClaimedValue parse_claimed(const json& value, const std::string& where) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.size() == 2 && value.contains("min") && value.contains("max") &&
      value["min"].is_number() && value["max"].is_number()) {
    const ClaimedRange range{value["min"].get<double>(), value["max"].get<double>()};
    if (range.min > range.max) throw InputError(where + ": 'claimed' range has min > max");
    return range;
  }
  throw InputError(where + ": 'claimed' must be a number, a string or {\"min\", \"max\"}");
}

Tolerance parse_tolerance(const json& value, const std::string& where) {
  Tolerance tolerance;
  if (!value.is_object() || value.empty()) {
    throw InputError(where + ": 'tolerance' must be {\"abs\": x} or {\"rel\": x}");
  }
  for (const auto& [key, number] : value.items()) {
    if (!number.is_number() || number.get<double>() < 0) {
      throw InputError(fmt::format("{}: tolerance.{} must be a non-negative number", where, key));
    }
    if (key == "abs") {
      tolerance.absolute = number.get<double>();
    } else if (key == "rel") {
      tolerance.relative = number.get<double>();
    } else {
      throw InputError(fmt::format("{}: tolerance.{}: unknown key (abs, rel)", where, key));
    }
  }
  return tolerance;
}

Comparison parse_compare(const json& value, const std::string& where) {
  const std::string text = value.is_string() ? value.get<std::string>() : "";
  if (text == "equal") return Comparison::kEqual;
  if (text == "at_most") return Comparison::kAtMost;
  if (text == "at_least") return Comparison::kAtLeast;
  throw InputError(where + ": 'compare' must be \"equal\", \"at_most\" or \"at_least\"");
}

Claim parse_claim(const json& object, std::size_t index, const std::string& label) {
  if (!object.is_object()) {
    throw InputError(fmt::format("{}: claims[{}] is not an object", label, index));
  }
  const auto id_it = object.find("id");
  const std::string where = id_it != object.end() && id_it->is_string()
                                ? fmt::format("{}: claim {}", label, id_it->get<std::string>())
                                : fmt::format("{}: claims[{}]", label, index);
  for (const auto& [key, unused] : object.items()) {
    if (kClaimKeys.count(key) == 0)
      throw InputError(fmt::format("{}: unknown key '{}'", where, key));
  }
  Claim claim;
  claim.id = require_string(object, "id", where);
  claim.document = require_string(object, "document", where);
  claim.section = require_string(object, "section", where);
  claim.quote = require_string(object, "quote", where);
  claim.unit = require_string(object, "unit", where);
  if (!object.contains("claimed")) throw InputError(where + ": missing 'claimed'");
  claim.claimed = parse_claimed(object["claimed"], where);
  if (!object.contains("device_dependent") || !object["device_dependent"].is_boolean()) {
    throw InputError(where + ": 'device_dependent' must be true or false");
  }
  claim.device_dependent = object["device_dependent"].get<bool>();
  if (object.contains("tolerance")) claim.tolerance = parse_tolerance(object["tolerance"], where);
  if (object.contains("compare")) claim.compare = parse_compare(object["compare"], where);
  if (!object.contains("check") || !object["check"].is_object()) {
    throw InputError(where + ": missing 'check' object");
  }
  claim.check = object["check"];
  claim.method = require_string(claim.check, "method", where + ": check");
  validate_check(claim.id, claim.check);
  return claim;
}

}  // namespace

std::filesystem::path default_claims_file() { return MARLIN_CLAIMS_FILE; }

ClaimSet load_claims(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open the claims file", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_claims(text.str(), path.string());
}

ClaimSet parse_claims(const std::string& text, const std::string& label) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error& error) {
    throw InputError(fmt::format("{}: not valid JSON ({})", label, error.what()));
  }
  if (!document.is_object() || !document.contains("claims") || !document["claims"].is_array()) {
    throw InputError(label + ": expected an object with a \"claims\" array");
  }
  if (!document.contains("format") || document["format"] != 1) {
    throw InputError(label + ": \"format\" must be 1");
  }
  ClaimSet set;
  set.source = label;
  std::set<std::string> ids;
  const json& claims = document["claims"];
  for (std::size_t i = 0; i < claims.size(); ++i) {
    Claim claim = parse_claim(claims[i], i, label);
    if (!ids.insert(claim.id).second) {
      throw InputError(fmt::format("{}: claim {}: duplicate id", label, claim.id));
    }
    set.claims.push_back(std::move(claim));
  }
  return set;
}

std::string claimed_text(const ClaimedValue& value) {
  if (const auto* number = std::get_if<double>(&value)) return format_number(*number);
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  const auto& range = std::get<ClaimedRange>(value);
  return format_number(range.min) + "-" + format_number(range.max);
}

std::string format_number(double value) {
  if (std::isfinite(value) && std::floor(value) == value && std::fabs(value) < 1e15) {
    return fmt::format("{}", static_cast<long long>(value));
  }
  return fmt::format("{:.6g}", value);
}

double unit_scale(const std::string& unit) {
  if (unit == "KiB") return 1024.0;
  if (unit == "MiB") return 1024.0 * 1024.0;
  if (unit == "GB/s") return 1e9;
  if (unit == "TFLOP/s") return 1e12;
  return 1.0;
}

}  // namespace marlin::validate
