#include "tools/cli/validation_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "model/common/input_error.h"
#include "tools/cli/args.h"

namespace marlin::cli {

validate::ValidationReport validate_seed_claims(const model::DeviceSpec& device,
                                                const std::string& claims_path) {
  const validate::ClaimSet claims = validate::load_claims(
      claims_path.empty() ? validate::default_claims_file() : std::filesystem::path(claims_path));
  return validate::validate_claims(device, claims);
}

void write_report_file(const validate::ValidationReport& report, const std::string& path,
                       const std::vector<GuideAnswer>* guide) {
  std::ofstream file(path);
  if (!file) throw InputError(fmt::format("--report: cannot write '{}'", path));
  validate::write_markdown(file, report);
  if (guide != nullptr) {
    file << "\n## Configuration selection guide, by simulation\n\n"
         << "Each workload row of tile-sizing-m4max.md section 9 at a representative shape, "
            "every recommended configuration simulated (sampled, docs/sampling.md) on "
         << report.device << ". A recommendation holds when it is the fastest or within the "
         << "sampling error bound of the fastest.\n\n";
    write_guide_markdown(file, *guide);
  }
  if (!file) throw InputError(fmt::format("--report: writing '{}' failed", path));
}

std::vector<GuideAnswer> simulate_guide_with_progress(const model::DeviceSpec& device,
                                                      std::ostream& progress) {
  const unsigned threads = host_cores();
  std::vector<GuideAnswer> answers =
      simulate_guide(device, guide_rows(false), threads, [&](std::size_t done, std::size_t total) {
        progress << fmt::format("\rsimulating the selection guide: {}/{}", done, total)
                 << (done == total ? "\n" : "") << std::flush;
      });
  return answers;
}

}  // namespace marlin::cli
