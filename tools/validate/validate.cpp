#include "tools/validate/validate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "fmt/core.h"
#include "model/common/input_error.h"
#include "model/device/profile_loader.h"
#include "tools/validate/methods.h"

namespace marlin::validate {
namespace {

// Model values shown with up to 4 significant digits unless integral.
std::string show(double value) {
  if (std::fabs(value - std::round(value)) < 1e-9 && std::fabs(value) < 1e15) {
    return format_number(std::round(value));
  }
  return fmt::format("{:.4g}", value);
}

double allowed_error(const Claim& claim, double claimed) {
  const double floor = 1e-9 * std::max(1.0, std::fabs(claimed));
  return std::max({claim.tolerance.absolute, claim.tolerance.relative * std::fabs(claimed), floor});
}

bool number_holds(const Claim& claim, double model) {
  if (const auto* range = std::get_if<ClaimedRange>(&claim.claimed)) {
    const double slack = std::max(claim.tolerance.absolute, 1e-9);
    return model >= range->min - slack && model <= range->max + slack;
  }
  const double claimed = std::get<double>(claim.claimed);
  const double tol = allowed_error(claim, claimed);
  switch (claim.compare) {
    case Comparison::kEqual:
      return std::fabs(model - claimed) <= tol;
    case Comparison::kAtMost:
      return model <= claimed + tol;
    case Comparison::kAtLeast:
      return model >= claimed - tol;
  }
  return false;
}

ClaimResult evaluate_one(const Claim& claim, const CheckContext& context) {
  ClaimResult r;
  r.id = claim.id;
  r.document = claim.document;
  r.section = claim.section;
  r.quote = claim.quote;
  r.claimed = claimed_text(claim.claimed);
  r.claimed_value = claim.claimed;
  r.tolerance = claim.tolerance;
  r.unit = claim.unit;
  r.device_dependent = claim.device_dependent;
  r.method = claim.method;
  const MethodValue value = evaluate_check(claim.id, claim.check, context);
  r.needs_simulation = value.needs_simulation;
  if (r.needs_simulation) r.simulation_what = claim.check.value("what", "");
  if (std::holds_alternative<std::monostate>(value.value)) {
    r.verdict = Verdict::kCannotCheck;
    r.reason = value.cannot_check;
    return r;
  }
  bool holds = false;
  if (const auto* number = std::get_if<double>(&value.value)) {
    if (std::holds_alternative<std::string>(claim.claimed)) {
      throw InputError(
          fmt::format("claim {}: method {} gives a number but the claimed value is "
                      "text",
                      claim.id, claim.method));
    }
    const double in_unit = *number / unit_scale(claim.unit);
    r.model_number = in_unit;
    r.model = show(in_unit);
    holds = number_holds(claim, in_unit);
  } else {
    const auto* claimed = std::get_if<std::string>(&claim.claimed);
    if (claimed == nullptr) {
      throw InputError(
          fmt::format("claim {}: method {} gives text but the claimed value is a "
                      "number",
                      claim.id, claim.method));
    }
    r.model = std::get<std::string>(value.value);
    holds = r.model == *claimed;
  }
  r.verdict = holds ? Verdict::kHolds : Verdict::kDoesNotHold;
  if (!holds) r.corrected = r.model;
  r.reason = value.work;
  return r;
}

}  // namespace

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kHolds:
      return "holds";
    case Verdict::kDoesNotHold:
      return "does_not_hold";
    case Verdict::kCannotCheck:
      return "cannot_check";
  }
  return "?";
}

ValidationReport validate_claims(const model::DeviceSpec& device, const ClaimSet& claims,
                                 const DeviceLoader& load_named) {
  ValidationReport report;
  report.device = device.name;
  report.device_description = device.description;
  report.claims_source = claims.source;
  std::map<std::string, std::unique_ptr<model::DeviceSpec>> named;
  CheckContext context;
  context.device = &device;
  context.named_device = [&](const std::string& name) -> const model::DeviceSpec& {
    if (name == device.name) return device;
    auto& slot = named[name];
    if (!slot) {
      slot = std::make_unique<model::DeviceSpec>(load_named ? load_named(name)
                                                            : model::load_device(name));
    }
    return *slot;
  };
  for (const Claim& claim : claims.claims) {
    ClaimResult result = evaluate_one(claim, context);
    switch (result.verdict) {
      case Verdict::kHolds:
        ++report.holds;
        break;
      case Verdict::kDoesNotHold:
        ++report.does_not_hold;
        break;
      case Verdict::kCannotCheck:
        ++report.cannot_check;
        break;
    }
    if (result.device_dependent) ++report.device_dependent;
    report.results.push_back(std::move(result));
  }
  return report;
}

std::vector<const ClaimResult*> corrections(const ValidationReport& report) {
  std::vector<const ClaimResult*> list;
  for (const ClaimResult& r : report.results) {
    if (r.verdict == Verdict::kDoesNotHold) list.push_back(&r);
  }
  return list;
}

}  // namespace marlin::validate
