#include "model/device/device_names.h"

#include <fmt/format.h>

#include <array>
#include <string>
#include <utility>

#include "model/common/input_error.h"

namespace marlin::model {
namespace {

// Each table pairs an enumerator with its profile spelling; parse and print share it.
constexpr std::array kFamilyNames{std::pair{GpuFamily::kApple7, std::string_view("apple7")},
                                  std::pair{GpuFamily::kApple8, std::string_view("apple8")},
                                  std::pair{GpuFamily::kApple9, std::string_view("apple9")}};
constexpr std::array kRuleNames{
    std::pair{OccupancyRule::kStatic, std::string_view("static")},
    std::pair{OccupancyRule::kDynamicCaching, std::string_view("dynamic_caching")}};
constexpr std::array kKindNames{
    std::pair{SourceKind::kVendor, std::string_view("vendor")},
    std::pair{SourceKind::kMeasured, std::string_view("measured")},
    std::pair{SourceKind::kReverseEngineered, std::string_view("reverse-engineered")},
    std::pair{SourceKind::kEstimate, std::string_view("estimate")},
    std::pair{SourceKind::kCalibrated, std::string_view("calibrated")}};
constexpr std::array kBankRuleNames{std::pair{BankRule::kClassic, std::string_view("classic")}};
constexpr std::array kIssuePolicyNames{
    std::pair{IssuePolicy::kOldestFirst, std::string_view("oldest_first")},
    std::pair{IssuePolicy::kGreedyThenOldest, std::string_view("greedy_then_oldest")}};

// The spelling of `value`; "unknown" only for a value outside the enumeration.
template <typename Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& table,
                         Enum value) {
  for (const auto& [entry, name] : table) {
    if (entry == value) return name;
  }
  return "unknown";
}

// The enumerator spelled `text`; InputError listing the spellings otherwise.
template <typename Enum, std::size_t N>
Enum parse_name(const std::array<std::pair<Enum, std::string_view>, N>& table,
                std::string_view text, std::string_view what) {
  std::string accepted;
  for (const auto& [entry, name] : table) {
    if (name == text) return entry;
    accepted += accepted.empty() ? "" : ", ";
    accepted += name;
  }
  throw InputError(fmt::format("unknown {} '{}'; expected one of {}", what, text, accepted));
}

}  // namespace

std::string_view to_string(GpuFamily family) { return name_of(kFamilyNames, family); }
std::string_view to_string(OccupancyRule rule) { return name_of(kRuleNames, rule); }
std::string_view to_string(SourceKind kind) { return name_of(kKindNames, kind); }
std::string_view to_string(BankRule rule) { return name_of(kBankRuleNames, rule); }
std::string_view to_string(IssuePolicy policy) { return name_of(kIssuePolicyNames, policy); }

GpuFamily parse_gpu_family(std::string_view text) {
  return parse_name(kFamilyNames, text, "GPU family");
}
OccupancyRule parse_occupancy_rule(std::string_view text) {
  return parse_name(kRuleNames, text, "occupancy rule");
}
SourceKind parse_source_kind(std::string_view text) {
  return parse_name(kKindNames, text, "source kind");
}
BankRule parse_bank_rule(std::string_view text) {
  return parse_name(kBankRuleNames, text, "bank rule");
}
IssuePolicy parse_issue_policy(std::string_view text) {
  return parse_name(kIssuePolicyNames, text, "issue policy");
}

}  // namespace marlin::model
