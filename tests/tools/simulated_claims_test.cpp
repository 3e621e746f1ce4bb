// The simulated column: claims about the fastest configuration judged from guide answers built
// by hand, so each verdict is known in advance.
#include "tools/cli/simulated_claims.h"

#include <gtest/gtest.h>

namespace marlin::cli {
namespace {

validate::ClaimResult claim(const std::string& id, const std::string& claimed) {
  validate::ClaimResult r;
  r.id = id;
  r.claimed = claimed;
  r.needs_simulation = true;
  return r;
}

// A row at M with the five configurations' times in guide_configs() order.
GuideAnswer row(std::int64_t m, const std::vector<double>& seconds) {
  GuideAnswer a;
  a.row = {"row", "", m, 4096, 4096, ""};
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    a.cells.push_back({guide_configs()[i].name, seconds[i], ""});
  }
  return a;
}

TEST(SimulatedClaims, JudgesFastestConfigurationClaims) {
  validate::ValidationReport report;
  report.results = {
      claim("tile-sizing/9/guide-decode", "32x128x32 fused"),
      claim("tile-sizing/9/guide-prefill-short", "64x64x32 separate"),
      claim("tile-sizing/9.1/select-tile-64x64x32", "64x64x32"),
      claim("tile-sizing/8.2/net-win", "fused faster"),
      claim("tile-sizing/1/gpu-cores", "40"),
  };
  report.results.back().verdict = validate::Verdict::kHolds;
  report.results.back().needs_simulation = false;
  // Order: 32x128x32 fused, 64x64x32 fused, 64x64x32 separate, 128x64x16 separate,
  // 128x128x16 fused.
  ClaimMeasurements measured;
  measured.guide = {
      // M=1: 32x128x32 fused takes 1.03 (within 4% of the fastest 1.00): holds.
      row(1, {1.03, 2.0, 1.00, 3.0, 4.0}),
      // M=16: separate 64x64x32 beats fused 64x64x32 (0.5 against 0.9): net-win fails.
      row(16, {2.0, 0.9, 0.5, 3.0, 4.0}),
      // M=64: fastest is 128x64x16 separate (1.0); 64x64x32's best variant 1.2: 20% slower.
      row(64, {3.0, 1.3, 1.2, 1.0, 2.0}),
  };
  apply_simulated_claims(report, measured);
  const auto& r = report.results;
  EXPECT_EQ(r[0].verdict, validate::Verdict::kHolds);
  EXPECT_EQ(r[1].verdict, validate::Verdict::kDoesNotHold);
  EXPECT_EQ(r[1].corrected, "128x64x16 separate");
  EXPECT_EQ(r[2].verdict, validate::Verdict::kDoesNotHold);
  EXPECT_EQ(r[2].corrected, "128x64x16");
  EXPECT_EQ(r[3].verdict, validate::Verdict::kDoesNotHold);
  EXPECT_EQ(r[3].corrected, "separate faster");
  EXPECT_EQ(r[4].verdict, validate::Verdict::kHolds);  // untouched
  EXPECT_NE(r[0].simulated.find("fastest 64x64x32 separate"), std::string::npos) << r[0].simulated;
  EXPECT_EQ(report.holds, 2);
  EXPECT_EQ(report.does_not_hold, 3);
  EXPECT_EQ(report.cannot_check, 0);
}

TEST(SimulatedClaims, BestForClaimsUseTheirShapes) {
  validate::ValidationReport report;
  report.results = {claim("tile-sizing/6.3/best-for", "32x128x32"),
                    claim("tile-sizing/6.4/best-for", "128x128x16")};
  ClaimMeasurements measured;
  // Large batch: 128x128x16 fused is fastest. Wide decode: 32x128x32 fused is 10% slower than
  // 64x64x32 separate.
  measured.guide = {row(1024, {5.0, 4.0, 3.0, 2.0, 1.0})};
  measured.wide_decode = row(16, {1.1, 2.0, 1.0, 3.0, 4.0});
  apply_simulated_claims(report, measured);
  EXPECT_EQ(report.results[0].verdict, validate::Verdict::kDoesNotHold);
  EXPECT_EQ(report.results[0].corrected, "64x64x32");
  EXPECT_EQ(report.results[1].verdict, validate::Verdict::kHolds);
}

TEST(SimulatedClaims, RowsNotSimulatedStayUnchecked) {
  validate::ValidationReport report;
  report.results = {claim("tile-sizing/9/guide-large-batch", "128x128x16 fused")};
  ClaimMeasurements measured;
  measured.guide = {row(1, {1, 1, 1, 1, 1})};
  apply_simulated_claims(report, measured);
  EXPECT_EQ(report.results[0].verdict, validate::Verdict::kCannotCheck);
  EXPECT_EQ(report.results[0].simulated, validate::kNotSimulatedYet);
  EXPECT_EQ(report.cannot_check, 1);
}

TEST(SimulatedClaims, ResidencyAndDequantClaims) {
  validate::ValidationReport report;
  report.results = {claim("tile-sizing/4.2/two-to-four-tgs-sufficient", "2-4"),
                    claim("tile-sizing/4.2/eight-plus-diminishing", "8"),
                    claim("tile-sizing/5.3/fp4-ops-per-element", "8"),
                    claim("tile-sizing/5.3/int4-ops-per-element", "4")};
  ClaimMeasurements measured;
  // Best 1.00 at 13; within 4%: 8 (1.03), not 4 (1.10). So 8 are needed, not 2-4; from 8 to
  // 13 the speed-up is 3%: diminishing.
  measured.residency = {{1, 4.0}, {2, 2.0}, {4, 1.10}, {8, 1.03}, {13, 1.00}};
  measured.fp4_ops_per_element = 9.5;  // within 25% of 8
  measured.u4_ops_per_element = 6.0;   // 50% above 4
  apply_simulated_claims(report, measured);
  const auto& r = report.results;
  EXPECT_EQ(r[0].verdict, validate::Verdict::kDoesNotHold);
  EXPECT_EQ(r[0].corrected, "8");
  EXPECT_EQ(r[1].verdict, validate::Verdict::kHolds);
  EXPECT_EQ(r[2].verdict, validate::Verdict::kHolds);
  EXPECT_EQ(r[3].verdict, validate::Verdict::kDoesNotHold);
  EXPECT_EQ(r[3].corrected, "6.00");

  // 4 within 4% of the best: holds; 8 -> 13 gives 10%: not diminishing.
  measured.residency = {{1, 4.0}, {2, 2.0}, {4, 1.20}, {8, 1.21}, {13, 1.16}};
  validate::ValidationReport again;
  again.results = {claim("tile-sizing/4.2/two-to-four-tgs-sufficient", "2-4"),
                   claim("tile-sizing/4.2/eight-plus-diminishing", "8")};
  apply_simulated_claims(again, measured);
  EXPECT_EQ(again.results[0].verdict, validate::Verdict::kHolds);
  EXPECT_EQ(again.results[1].verdict, validate::Verdict::kDoesNotHold);
}

}  // namespace
}  // namespace marlin::cli
