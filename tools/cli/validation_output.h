// The claims validation as the command line uses it: load the claims (shipped or given),
// validate them for a device, write the Markdown report to a file.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "model/device/device_spec.h"
#include "tools/cli/selection_guide.h"
#include "tools/validate/validate.h"

namespace marlin::cli {

// `claims_path` empty: the shipped claims file.
validate::ValidationReport validate_seed_claims(const model::DeviceSpec& device,
                                                const std::string& claims_path);

// Throws InputError when the file cannot be written. With `guide`, the report ends with the
// configuration-selection guide answered by simulation.
void write_report_file(const validate::ValidationReport& report, const std::string& path,
                       const std::vector<GuideAnswer>* guide = nullptr);

// `--simulate`: the guide's workload rows by sampled simulation, with progress on `progress`.
std::vector<GuideAnswer> simulate_guide_with_progress(const model::DeviceSpec& device,
                                                      std::ostream& progress);

}  // namespace marlin::cli
