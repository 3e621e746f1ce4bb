#include "tools/cli/simulated_claims.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "tools/cli/claim_verdict.h"
#include "tools/cli/format.h"
#include "tools/cli/sampling.h"
#include "tools/cli/simulated_phase_claims.h"

namespace marlin::cli {
namespace {

const GuideAnswer* row_with_m(const std::vector<GuideAnswer>& guide, std::int64_t m) {
  for (const GuideAnswer& a : guide) {
    if (a.row.m == m) return &a;
  }
  return nullptr;
}

// The fastest time of the configurations whose name starts with `prefix` ("" = all).
std::optional<double> fastest_with(const GuideAnswer& a, const std::string& prefix,
                                   std::string* name = nullptr) {
  std::optional<double> best;
  for (const GuideCell& cell : a.cells) {
    if (!cell.seconds || cell.config.rfind(prefix, 0) != 0) continue;
    if (!best || *cell.seconds < *best) {
      best = cell.seconds;
      if (name != nullptr) *name = cell.config;
    }
  }
  return best;
}

std::string shape_text(const GuideAnswer& a) {
  return fmt::format("{}x{}x{}", a.row.m, a.row.n, a.row.k);
}

// Sets the verdict of `r` from the claimed configuration's time against the fastest one.
void judge(validate::ClaimResult& r, const std::string& claimed_name,
           std::optional<double> claimed_time, const std::string& fastest_name,
           std::optional<double> fastest_time, const std::string& where) {
  if (!claimed_time || !fastest_time) {
    r.verdict = validate::Verdict::kCannotCheck;
    r.simulated = "no configuration ran";
    return;
  }
  r.simulated = fmt::format("fastest {} ({}); {} {}", fastest_name, format_seconds(*fastest_time),
                            claimed_name, format_seconds(*claimed_time));
  const bool holds = *claimed_time <= *fastest_time * (1 + kSampledErrorBound);
  r.verdict = holds ? validate::Verdict::kHolds : validate::Verdict::kDoesNotHold;
  r.corrected = holds ? std::string() : fastest_name;
  r.reason = fmt::format(
      "sampled simulation of {}: {} takes {}, the fastest ({}) {}; {} within the {:.0f}% "
      "sampling bound",
      where, claimed_name, format_seconds(*claimed_time), fastest_name,
      format_seconds(*fastest_time), holds ? "it is" : "it is not", 100 * kSampledErrorBound);
}

void recount(validate::ValidationReport& report) {
  report.holds = report.does_not_hold = report.cannot_check = 0;
  for (const validate::ClaimResult& r : report.results) {
    switch (r.verdict) {
      case validate::Verdict::kHolds:
        ++report.holds;
        break;
      case validate::Verdict::kDoesNotHold:
        ++report.does_not_hold;
        break;
      case validate::Verdict::kCannotCheck:
        ++report.cannot_check;
        break;
    }
  }
}

void judge_residency(validate::ClaimResult& r, const ClaimMeasurements& m) {
  if (m.residency.empty()) return;
  double best = m.residency.front().seconds;
  for (const ResidencyPoint& p : m.residency) best = std::min(best, p.seconds);
  std::string curve;
  for (const ResidencyPoint& p : m.residency) {
    curve +=
        fmt::format("{}{}: {}", curve.empty() ? "" : ", ", p.resident, format_seconds(p.seconds));
  }
  const std::string where =
      "sampled " + m.residency_shape + " with at most N resident per core (" + curve + ")";
  if (r.id == "tile-sizing/4.2/two-to-four-tgs-sufficient") {
    int enough = m.residency.back().resident;
    for (const ResidencyPoint& p : m.residency) {
      if (p.seconds <= best * (1 + kSampledErrorBound)) {
        enough = p.resident;
        break;
      }
    }
    set_simulated_verdict(r, enough >= 2 && enough <= 4, fmt::format("{}", enough),
                          std::to_string(enough),
                          fmt::format("{}: the fewest within {:.0f}% of the best is {}", where,
                                      100 * kSampledErrorBound, enough));
    return;
  }
  const ResidencyPoint& most = m.residency.back();
  const auto eight = std::find_if(m.residency.begin(), m.residency.end(),
                                  [](const ResidencyPoint& p) { return p.resident == 8; });
  if (eight == m.residency.end() || most.resident <= 8) {
    r.simulated = fmt::format("the device admits at most {} threadgroups per core", most.resident);
    return;
  }
  const double speedup = eight->seconds / most.seconds - 1;
  set_simulated_verdict(
      r, speedup <= kSampledErrorBound,
      fmt::format("{:+.1f}% from 8 to {}", 100 * speedup, most.resident),
      fmt::format("{:.1f}% faster at {}", 100 * speedup, most.resident),
      fmt::format("{}: 8 -> {} resident gives {:+.1f}% speed (diminishing if within "
                  "{:.0f}%)",
                  where, most.resident, 100 * speedup, 100 * kSampledErrorBound));
}

void judge_dequant_ops(validate::ClaimResult& r, std::optional<double> measured,
                       const char* kernel) {
  if (!measured) return;
  double claimed = 0;
  try {
    claimed = std::stod(r.claimed);
  } catch (const std::exception&) {
    return;
  }
  const bool holds = std::abs(*measured - claimed) <= 0.25 * claimed;
  set_simulated_verdict(
      r, holds, fmt::format("{:.2f}", *measured), fmt::format("{:.2f}", *measured),
      fmt::format("the engine counts {:.2f} lane ALU instructions per element in {} "
                  "(128 x 64 weights, groups of 128; index arithmetic and loop control "
                  "as the source states them, with loops marked for full unrolling "
                  "unrolled: an upper bound); a \"~\" "
                  "claim holds within 25%",
                  *measured, kernel));
}

}  // namespace

void apply_simulated_claims(validate::ValidationReport& report, const ClaimMeasurements& measured) {
  const std::vector<GuideAnswer>& guide = measured.guide;
  const std::map<std::string, std::int64_t> guide_rows = {
      {"tile-sizing/9/guide-decode", 1},
      {"tile-sizing/9/guide-small-batch-decode", 16},
      {"tile-sizing/9/guide-prefill-short", 64},
      {"tile-sizing/9/guide-prefill-long", 256},
      {"tile-sizing/9/guide-large-batch", 1024}};
  // Tile claims: the claimed tile (either variant) against the fastest at the guide row of M
  // (0: the wide decode shape).
  const std::map<std::string, std::int64_t> select_tile_rows = {
      {"tile-sizing/9.1/select-tile-32x128x32", 16},
      {"tile-sizing/9.1/select-tile-64x64x32", 64},
      {"tile-sizing/9.1/select-tile-128x64x16", 256},
      {"tile-sizing/9.1/select-tile-128x128x16", 1024},
      {"tile-sizing/6.1/best-for", 64},
      {"tile-sizing/6.2/best-for", 256},
      {"tile-sizing/6.3/best-for", 0},
      {"tile-sizing/6.4/best-for", 1024}};
  for (validate::ClaimResult& r : report.results) {
    if (const auto it = guide_rows.find(r.id); it != guide_rows.end()) {
      const GuideAnswer* a = row_with_m(guide, it->second);
      if (a == nullptr) continue;
      std::string fastest;
      const std::optional<double> best = fastest_with(*a, "", &fastest);
      std::optional<double> claimed;
      for (const GuideCell& cell : a->cells) {
        if (cell.config == r.claimed) claimed = cell.seconds;
      }
      judge(r, r.claimed, claimed, fastest, best, a->row.workload + " at " + shape_text(*a));
    } else if (const auto st = select_tile_rows.find(r.id); st != select_tile_rows.end()) {
      const GuideAnswer* a = st->second == 0
                                 ? (measured.wide_decode ? &*measured.wide_decode : nullptr)
                                 : row_with_m(guide, st->second);
      if (a == nullptr) continue;
      std::string fastest;
      const std::optional<double> best = fastest_with(*a, "", &fastest);
      std::string claimed_name;
      const std::optional<double> claimed = fastest_with(*a, r.claimed + " ", &claimed_name);
      judge(r, claimed_name.empty() ? r.claimed : claimed_name, claimed, fastest, best,
            shape_text(*a));
      if (r.verdict == validate::Verdict::kDoesNotHold) {
        r.corrected = fastest.substr(0, fastest.find(' '));
      }
    } else if (r.id == "tile-sizing/8.2/net-win") {
      const GuideAnswer* a = row_with_m(guide, 16);
      if (a == nullptr) continue;
      const std::string fused = "64x64x32 fused";
      const std::string separate = "64x64x32 separate";
      const std::optional<double> fused_time = fastest_with(*a, fused);
      const std::optional<double> separate_time = fastest_with(*a, separate);
      if (!fused_time || !separate_time) continue;
      const bool fused_wins = *fused_time < *separate_time;
      judge(r, fused, fused_time, fused_wins ? fused : separate,
            fused_wins ? fused_time : separate_time, shape_text(*a));
      if (r.verdict == validate::Verdict::kDoesNotHold) r.corrected = "separate faster";
    } else if (r.id.rfind("tile-sizing/4.2/", 0) == 0) {
      judge_residency(r, measured);
    } else if (r.id == "tile-sizing/5.3/fp4-ops-per-element") {
      judge_dequant_ops(r, measured.fp4_ops_per_element, "dequant_fp4");
    } else if (r.id == "tile-sizing/5.3/int4-ops-per-element") {
      judge_dequant_ops(r, measured.u4_ops_per_element, "dequant_u4");
    }
  }
  apply_phase_claims(report, measured);
  recount(report);
}

}  // namespace marlin::cli
