// Writers of a ValidationReport: the Markdown report, the main job's summary, and JSON.
#include <algorithm>
#include <string>
#include <vector>

#include "fmt/core.h"
#include "tools/validate/validate.h"

namespace marlin::validate {
namespace {

std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string with_unit(const std::string& value, const std::string& unit) {
  if (value.empty()) return "-";
  if (unit == "text" || unit == "count" || unit.empty()) return value;
  return value + " " + unit;
}

}  // namespace

void write_summary(std::ostream& out, const ValidationReport& report) {
  out << fmt::format(
      "Claims checked against {}: {} hold, {} do not hold, {} cannot be checked "
      "({} depend on the device)\n",
      report.device, report.holds, report.does_not_hold, report.cannot_check,
      report.device_dependent);
  for (const ClaimResult* r : corrections(report)) {
    const bool simulated = r->needs_simulation && r->simulated != kNotSimulatedYet;
    out << fmt::format("  {}: \"{}\" claims {}; {} {}\n", r->id, r->quote,
                       with_unit(r->claimed, r->unit), simulated ? "simulated" : "model",
                       with_unit(r->corrected, r->unit));
  }
}

void write_markdown(std::ostream& out, const ValidationReport& report) {
  out << "# Validation of the tile-sizing analysis\n\n";
  out << fmt::format("Device: `{}` ({}). Claims: `{}`.\n\n", report.device,
                     report.device_description, report.claims_source);
  out << fmt::format(
      "| verdict | claims |\n|---|---|\n| holds | {} |\n| does not hold | {} |\n| cannot be "
      "checked | {} |\n| total | {} |\n\n{} claims depend on the device (marked *).\n\n",
      report.holds, report.does_not_hold, report.cannot_check, report.results.size(),
      report.device_dependent);
  out << "## Corrections\n\n| id | claimed | model | reason |\n|---|---|---|---|\n";
  for (const ClaimResult* r : corrections(report)) {
    out << fmt::format("| {}{} | {} | {} | {} |\n", r->id, r->device_dependent ? " *" : "",
                       cell(with_unit(r->claimed, r->unit)), cell(with_unit(r->corrected, r->unit)),
                       cell(r->reason));
  }
  std::vector<std::string> documents;
  for (const ClaimResult& r : report.results) {
    if (std::find(documents.begin(), documents.end(), r.document) == documents.end()) {
      documents.push_back(r.document);
    }
  }
  for (const std::string& document : documents) {
    out << fmt::format("\n## {}\n\n", document);
    out << "| id | § | quote | claimed | model | verdict | reason | simulated |\n"
           "|---|---|---|---|---|---|---|---|\n";
    for (const ClaimResult& r : report.results) {
      if (r.document != document) continue;
      out << fmt::format("| {}{} | {} | {} | {} | {} | {} | {} | {} |\n", r.id,
                         r.device_dependent ? " *" : "", r.section, cell(r.quote),
                         cell(with_unit(r.claimed, r.unit)), cell(with_unit(r.model, r.unit)),
                         verdict_name(r.verdict), cell(r.reason),
                         r.needs_simulation ? r.simulated : "-");
    }
  }
}

nlohmann::json to_json(const ValidationReport& report) {
  nlohmann::json claims = nlohmann::json::array();
  for (const ClaimResult& r : report.results) {
    nlohmann::json entry = {
        {"id", r.id},
        {"document", r.document},
        {"section", r.section},
        {"quote", r.quote},
        {"claimed", r.claimed},
        {"unit", r.unit},
        {"device_dependent", r.device_dependent},
        {"method", r.method},
        {"verdict", verdict_name(r.verdict)},
        {"reason", r.reason},
        {"needs_simulation", r.needs_simulation},
        {"simulation_what", r.simulation_what},
        {"simulated", r.needs_simulation ? nlohmann::json(r.simulated) : nlohmann::json(nullptr)}};
    entry["model"] = r.model_number    ? nlohmann::json(*r.model_number)
                     : r.model.empty() ? nlohmann::json(nullptr)
                                       : nlohmann::json(r.model);
    entry["corrected"] =
        r.corrected.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.corrected);
    claims.push_back(std::move(entry));
  }
  return {{"device", report.device},
          {"device_description", report.device_description},
          {"claims_file", report.claims_source},
          {"summary",
           {{"holds", report.holds},
            {"does_not_hold", report.does_not_hold},
            {"cannot_check", report.cannot_check},
            {"total", report.results.size()},
            {"device_dependent", report.device_dependent}}},
          {"claims", std::move(claims)}};
}

}  // namespace marlin::validate
