// The profile schema: every JSON leaf a device profile may (or must) hold, its value type,
// when it is required, and where it goes in DeviceSpec.
//
// Contract: profile_fields() lists the leaves in decoding order -- gpu.clock comes before any
// latency (latencies given as a time are converted with it) and occupancy.rule before the
// rule-specific fields. A leaf's JSON path is its section path and key joined by '.', e.g.
// "memory.l1.hit_latency". Everything that is not a leaf path or a prefix of one is an unknown
// key. The table is the single source of truth for the loader, the checks and docs/profiles.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/device/device_spec.h"

namespace marlin::model {

// How a leaf's "value" is written and decoded.
enum class FieldType {
  kCount,          // JSON integer (a float with no fraction is accepted)
  kReal,           // JSON number
  kBytes,          // string, parse_bytes
  kFrequency,      // string, parse_frequency_hz
  kBandwidth,      // string, parse_bandwidth
  kTime,           // string, parse_time_s
  kCycles,         // string, parse_cycles
  kLatency,        // string, parse_latency_cycles (cycles, or a time converted with gpu.clock)
  kGpuFamily,      // string, parse_gpu_family
  kOccupancyRule,  // string, parse_occupancy_rule
  kBankRule,       // string, parse_bank_rule
  kIssuePolicy,    // string, parse_issue_policy
  kRegisterTable,  // array of {"max_registers": n, "max_threads": n}
};

// When a leaf must be present (and when it must be absent).
enum class FieldUse {
  kAlways,
  kStaticRule,   // required with occupancy.rule "static", rejected otherwise
  kDynamicRule,  // required with occupancy.rule "dynamic_caching", rejected otherwise
};

// A decoded leaf value; which member is set depends on the FieldType.
struct FieldValue {
  std::int64_t integer = 0;         // kCount, kBytes, kCycles, kLatency
  double real = 0;                  // kReal, kFrequency (Hz), kBandwidth (B/s), kTime (s)
  std::string word;                 // enumerations
  std::vector<RegisterStep> steps;  // kRegisterTable
};

struct FieldDef {
  std::string_view path;
  FieldType type;
  FieldUse use;
  std::int64_t min_integer;  // smallest accepted integer for integer types (1 = positive)
  void (*assign)(DeviceSpec& spec, const FieldValue& value);  // may throw InputError
};

// All leaves, in decoding order.
const std::vector<FieldDef>& profile_fields();

// The field with this path, or nullptr.
const FieldDef* find_field(std::string_view path);

// Keys allowed directly under the section at `section_path` ("" is the top level sections
// only, not name/description/inherits), in schema order without duplicates.
std::vector<std::string> section_keys(std::string_view section_path);

// True when `path` is a section (a proper prefix of some leaf path).
bool is_section(std::string_view path);

}  // namespace marlin::model
