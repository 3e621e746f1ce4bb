// `marlin-sim validate`: every numeric claim of the seed analyses checked against the model for
// the chosen device; a summary on stdout and, with --report, the full Markdown report.
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "model/common/input_error.h"
#include "model/device/profile_loader.h"
#include "tools/cli/simulated_claims.h"
#include "tools/cli/validation_output.h"
#include "tools/cli/verbs.h"

namespace po = boost::program_options;

namespace marlin::cli {

int run_validate(const std::vector<std::string>& args, Streams streams) {
  CommonFlags common;
  std::string report_path;
  std::string claims_path;
  bool simulate = false;
  po::options_description options("validate flags");
  // clang-format off
  options.add_options()
      ("simulate", po::bool_switch(&simulate),
       "also answer the configuration-selection guide by sampled simulation")
      ("report", po::value<std::string>(&report_path), "write the full Markdown report here")
      ("claims", po::value<std::string>(&claims_path),
       "claims file (default: the shipped tools/validate/claims.json)");
  // clang-format on
  add_common_flags(options, common);
  parse_flags("validate", args, options);
  if (common.help) {
    print_help(
        streams.out,
        "marlin-sim validate [--device D] [--report FILE] [--claims FILE] [--simulate] [--json]",
        "Checks every numeric claim of the tile-sizing, architecture and stripe-partitioning\n"
        "analyses against the model of the device: holds, does not hold (with the\n"
        "corrected value and a worked reason) or cannot be checked (with why).",
        options);
    return 0;
  }
  const model::DeviceSpec device = model::load_device(common.device);
  validate::ValidationReport report = validate_seed_claims(device, claims_path);
  std::optional<std::vector<GuideAnswer>> guide;
  if (simulate) {
    ClaimMeasurements measured = measure_claims(device, streams.err);
    apply_simulated_claims(report, measured);
    guide = std::move(measured.guide);
  }
  if (!report_path.empty()) write_report_file(report, report_path, guide ? &*guide : nullptr);
  if (common.json) {
    nlohmann::json json = validate::to_json(report);
    if (guide) json["selection_guide"] = guide_json(*guide);
    streams.out << json.dump(2) << '\n';
  } else {
    validate::write_summary(streams.out, report);
    if (guide) print_guide_summary(streams.out, *guide);
    if (!report_path.empty()) streams.out << "\nfull report: " << report_path << '\n';
  }
  return 0;
}

}  // namespace marlin::cli
