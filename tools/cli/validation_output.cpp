#include "tools/cli/validation_output.h"

#include <fmt/format.h>

#include <fstream>

#include "model/common/input_error.h"

namespace marlin::cli {

validate::ValidationReport validate_seed_claims(const model::DeviceSpec& device,
                                                const std::string& claims_path) {
  const validate::ClaimSet claims = validate::load_claims(
      claims_path.empty() ? validate::default_claims_file() : std::filesystem::path(claims_path));
  return validate::validate_claims(device, claims);
}

void write_report_file(const validate::ValidationReport& report, const std::string& path) {
  std::ofstream file(path);
  if (!file) throw InputError(fmt::format("--report: cannot write '{}'", path));
  validate::write_markdown(file, report);
  if (!file) throw InputError(fmt::format("--report: writing '{}' failed", path));
}

}  // namespace marlin::cli
