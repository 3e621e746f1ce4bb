// The claims validation as the command line uses it: load the claims (shipped or given),
// validate them for a device, write the Markdown report to a file.
#pragma once

#include <string>

#include "model/device/device_spec.h"
#include "tools/validate/validate.h"

namespace marlin::cli {

// `claims_path` empty: the shipped claims file.
validate::ValidationReport validate_seed_claims(const model::DeviceSpec& device,
                                                const std::string& claims_path);

// Throws InputError when the file cannot be written.
void write_report_file(const validate::ValidationReport& report, const std::string& path);

}  // namespace marlin::cli
