// Human and JSON views of a device profile: the one-screen summary and the full field list
// with the source of every number.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "model/device/device_spec.h"

namespace marlin::cli {

// Key figures: cores, clock, peak FP16 rate, DRAM bandwidth, machine balance, limits.
void print_device_summary(std::ostream& out, const model::DeviceSpec& device);
nlohmann::json device_summary_json(const model::DeviceSpec& device);

// Every profile field with its value, source kind and source.
void print_device_fields(std::ostream& out, const model::DeviceSpec& device);
nlohmann::json device_fields_json(const model::DeviceSpec& device);

}  // namespace marlin::cli
