// Names of the DeviceSpec enumerations as profiles and reports spell them.
//
// to_string returns the profile spelling ("apple9", "dynamic_caching", "reverse-engineered",
// "classic", "oldest_first"); each parse_* accepts exactly that spelling and throws
// marlin::InputError listing the accepted names otherwise.
#pragma once

#include <string_view>

#include "model/device/device_spec.h"

namespace marlin::model {

std::string_view to_string(GpuFamily family);
std::string_view to_string(OccupancyRule rule);
std::string_view to_string(SourceKind kind);
std::string_view to_string(BankRule rule);
std::string_view to_string(IssuePolicy policy);

GpuFamily parse_gpu_family(std::string_view text);
OccupancyRule parse_occupancy_rule(std::string_view text);
SourceKind parse_source_kind(std::string_view text);
BankRule parse_bank_rule(std::string_view text);
IssuePolicy parse_issue_policy(std::string_view text);

}  // namespace marlin::model
