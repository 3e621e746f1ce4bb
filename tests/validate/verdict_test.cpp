// Verdicts of the claim checks, in both directions, against values computed in the test, and
// the report writers. Device-dependent expectations read the loaded profile's fields and apply
// the documented formula by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "model/common/input_error.h"
#include "model/device/profile_loader.h"
#include "tools/validate/validate.h"

namespace marlin::validate {
namespace {

const ValidationReport& shipped_report(const std::string& device) {
  static std::map<std::string, ValidationReport> reports;
  auto it = reports.find(device);
  if (it == reports.end()) {
    it = reports
             .emplace(device, validate_claims(model::load_device(device),
                                              load_claims(default_claims_file())))
             .first;
  }
  return it->second;
}

const ClaimResult& result(const std::string& device, const std::string& id) {
  for (const ClaimResult& r : shipped_report(device).results) {
    if (r.id == id) return r;
  }
  throw std::runtime_error("no claim " + id);
}

ClaimSet single(const std::string& claimed, const std::string& check,
                const std::string& extra = "") {
  return parse_claims(R"({"format": 1, "claims": [{"id": "t/1/x", "document": "t.md",
      "section": "1", "quote": "q", "claimed": )" +
                          claimed + R"(, "unit": "x", "device_dependent": false, )" + extra +
                          R"("check": )" + check + "}]}",
                      "t.json");
}

TEST(Verdict, FusedBudgetHolds) {
  const ClaimResult& r = result("m4max", "tile-sizing/2.3/64x64x32-fused-total");
  // A tile 64 x 32 halves x 2 B + staging 4 simdgroups x 8 x 8 halves x 2 B.
  const double expected = 64 * 32 * 2 + 4 * 8 * 8 * 2;  // 4096 + 512 = 4608
  EXPECT_EQ(r.verdict, Verdict::kHolds);
  ASSERT_TRUE(r.model_number.has_value());
  EXPECT_DOUBLE_EQ(*r.model_number, expected);
}

TEST(Verdict, Fp16IntensityOf32x128x32DoesNotHold) {
  const ClaimResult& r = result("m4max", "tile-sizing/5.2/32x128x32-ai-fp16");
  const double expected = 2.0 * 32 * 128 * 32 / (32 * 32 * 2 + 32 * 128 * 2);  // 25.6
  EXPECT_EQ(r.verdict, Verdict::kDoesNotHold);
  EXPECT_EQ(r.claimed, "32");
  ASSERT_TRUE(r.model_number.has_value());
  EXPECT_NEAR(*r.model_number, expected, 1e-9);
  EXPECT_EQ(r.corrected, "25.6");
  // The FP4 intensity of the same tile (64.0) holds.
  EXPECT_EQ(result("m4max", "tile-sizing/5.1/32x128x32-ai-fp4").verdict, Verdict::kHolds);
}

TEST(Verdict, MmaFlopsDoNotHold) {
  const ClaimResult& r = result("m4max", "tile-sizing/3.1/mma-flops");
  EXPECT_EQ(r.verdict, Verdict::kDoesNotHold);
  EXPECT_DOUBLE_EQ(*r.model_number, 2.0 * 8 * 8 * 8);  // 512 FMAs x 2
  EXPECT_NE(r.reason.find("1024"), std::string::npos) << r.reason;
}

TEST(Verdict, StripeGridOfThreeByThreeOnFiveHolds) {
  const ClaimResult& r = result("m4max", "stripe/1.2/3x3-on-5-grid");
  // Column-major linear index l = col * 3 + row; ceil(9 / 5) = 2 per TG, owner = l / 2.
  std::string expected;
  for (int row = 0; row < 3; ++row) {
    if (row > 0) expected += " / ";
    for (int col = 0; col < 3; ++col) {
      if (col > 0) expected += " ";
      expected += std::to_string((col * 3 + row) / 2);
    }
  }
  EXPECT_EQ(r.model, expected);
  EXPECT_EQ(r.verdict, Verdict::kHolds);
}

TEST(Verdict, ArchitectureLinearizationIsRowMajor) {
  const ClaimResult& r = result("m4max", "architecture/stripe/linearized-column-major");
  EXPECT_EQ(r.verdict, Verdict::kDoesNotHold);
  EXPECT_EQ(r.corrected, "row-major");
  EXPECT_EQ(result("m4max", "stripe/2.1/column-major").verdict, Verdict::kHolds);
}

TEST(Verdict, LayoutCoverageOfArchitectureDoesNotHold) {
  const ClaimResult& r = result("m4max", "architecture/simdgroup-layout/coverage");
  EXPECT_EQ(r.verdict, Verdict::kDoesNotHold);
  EXPECT_DOUBLE_EQ(*r.model_number, 100.0 * (2 * 16 * 2 * 32) / (64 * 64));  // 50 %
}

TEST(Verdict, PeakFp16DoesNotHoldOnM4Max) {
  const model::DeviceSpec device = model::load_device("m4max");
  const ClaimResult& r = result("m4max", "tile-sizing/1/peak-fp16");
  // 2 FLOP per FMA x schedulers x lanes / throughput x cores x clock, in TFLOP/s.
  const double expected = 2.0 * device.gpu.schedulers_per_core * device.gpu.simd_width /
                          device.pipes.fp16_fma.throughput_cycles * device.gpu.cores *
                          device.gpu.clock_hz / 1e12;
  EXPECT_EQ(r.verdict, Verdict::kDoesNotHold);
  EXPECT_NEAR(*r.model_number, expected, 1e-9);
  EXPECT_TRUE(r.device_dependent);
}

TEST(Verdict, FusedOccupancyFollowsThePoolRuleOnM4Max) {
  const model::DeviceSpec d = model::load_device("m4max");
  ASSERT_EQ(d.occupancy.rule, model::OccupancyRule::kDynamicCaching);
  // floor((pool - reserve) / (4608 B + 128 threads x assumed registers x 4 B x residency)),
  // capped by thread slots (3072 / 128) and the threadgroup cap.
  const double footprint = 4608 + std::ceil(128.0 * d.occupancy.assumed_registers_per_thread * 4 *
                                            d.occupancy.register_residency);
  const double pool = std::floor(static_cast<double>(d.occupancy.onchip_pool_per_core_bytes -
                                                     d.occupancy.cache_reserve_bytes) /
                                 footprint);
  const double expected = std::min({pool, std::floor(d.limits.max_threads_per_core / 128.0),
                                    static_cast<double>(d.limits.max_threadgroups_per_core)});
  const ClaimResult& r = result("m4max", "tile-sizing/4.1/fused-64x64x32-tgs-per-core");
  EXPECT_DOUBLE_EQ(*r.model_number, expected);
  EXPECT_EQ(r.verdict, expected == 7 ? Verdict::kHolds : Verdict::kDoesNotHold);
  // The document's own formula, floor(32768 / 4608) = 7, holds as arithmetic.
  EXPECT_EQ(result("m4max", "tile-sizing/4.1/fused-64x64x32-floor-rule").verdict, Verdict::kHolds);
}

TEST(Verdict, WavesGivenTheDocumentsSlots) {
  // 4096 tiles / 80 slots = 51.2 -> "~51" holds; 4096 / 280 = 14.6 -> "~15" holds.
  EXPECT_EQ(result("m4max", "tile-sizing/4.3/51-waves-given-80").verdict, Verdict::kHolds);
  EXPECT_DOUBLE_EQ(*result("m4max", "tile-sizing/4.3/51-waves-given-80").model_number, 4096.0 / 80);
  EXPECT_EQ(result("m4max", "tile-sizing/4.3/15-waves-given-280").verdict, Verdict::kHolds);
}

TEST(Verdict, FormulasAreComparedCaseByCase) {
  // 4 * (M*K + K*N) equals 2 buffers x (M*K + K*N) halves x 2 B for every tile.
  EXPECT_EQ(result("m4max", "tile-sizing/2.1/separate-formula").verdict, Verdict::kHolds);
  // uint M / 64 launches 16 / 64 = 0 rows for M = 16; the grid needs ceil(16 / 64) = 1.
  const ClaimResult& grid = result("m4max", "architecture/tiling/grid-m");
  EXPECT_EQ(grid.verdict, Verdict::kDoesNotHold);
  EXPECT_EQ(grid.corrected, "ceil(M/TM)");
  EXPECT_NE(grid.reason.find("M=16"), std::string::npos) << grid.reason;
}

TEST(Verdict, FusedDequantOverheadDoesNotHold) {
  // 4 simdgroups x 4 kt x 4 mi x 4 ni fragments x 64 elements x 8 ops over 2*64*64*32 FLOPs.
  const double expected = 4.0 * 4 * 4 * 4 * 64 * 8 / (2.0 * 64 * 64 * 32) * 100;  // 50 %
  const ClaimResult& r = result("m4max", "tile-sizing/5.3/fused-overhead-small");
  EXPECT_EQ(r.verdict, Verdict::kDoesNotHold);
  EXPECT_DOUBLE_EQ(*r.model_number, expected);
  // The separate kernel's 6.25 % = 32*64*8 / 262144 holds.
  EXPECT_EQ(result("m4max", "tile-sizing/5.3/fp4-overhead-ratio").verdict, Verdict::kHolds);
}

TEST(Verdict, SelectTileDisagreesWithTheGuide) {
  // Guide: 8-32 -> 64x64x32, select_tile: M <= 16 -> 32x128x32, so M = 9..16 differ.
  const ClaimResult& r = result("m4max", "tile-sizing/9.1/select-tile-agrees-with-guide");
  EXPECT_EQ(r.verdict, Verdict::kDoesNotHold);
  EXPECT_NE(r.reason.find("M 9-16"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("M 65-128"), std::string::npos) << r.reason;
}

TEST(Verdict, SimulationAndEstimatesCannotBeCheckedYet) {
  const ClaimResult& sim = result("m4max", "tile-sizing/8.2/inner-total-cycles");
  EXPECT_EQ(sim.verdict, Verdict::kCannotCheck);
  EXPECT_TRUE(sim.needs_simulation);
  EXPECT_EQ(sim.simulated, kNotSimulatedYet);
  EXPECT_NE(sim.simulation_what.find("fused inner loop"), std::string::npos);
  // The M4 Max L2 size in the profile is an estimate: no verdict.
  const ClaimResult& l2 = result("m4max", "architecture/fused/l2-size");
  EXPECT_EQ(l2.verdict, Verdict::kCannotCheck);
  EXPECT_NE(l2.reason.find("estimate"), std::string::npos);
}

TEST(Verdict, EveryClaimEvaluatesOnM4MaxAndM1) {
  for (const std::string device : {"m4max", "m1"}) {
    const ValidationReport& report = shipped_report(device);
    EXPECT_EQ(report.device, device);
    EXPECT_EQ(report.holds + report.does_not_hold + report.cannot_check,
              static_cast<int>(report.results.size()));
    int dependent = 0;
    for (const ClaimResult& r : report.results) {
      if (!r.device_dependent) continue;
      ++dependent;
      EXPECT_FALSE(r.reason.empty()) << device << " " << r.id;
    }
    EXPECT_EQ(dependent, report.device_dependent);
    EXPECT_GT(dependent, 50);
  }
  // Device-independent claims get the same verdict on both devices.
  const auto& a = shipped_report("m4max").results;
  const auto& b = shipped_report("m1").results;
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].device_dependent && a[i].method != "device_field" &&
        a[i].method != "device_expression") {
      EXPECT_EQ(a[i].verdict, b[i].verdict) << a[i].id;
    }
  }
}

TEST(Verdict, TolerancesAndComparisons) {
  const model::DeviceSpec d = model::load_device("m4max");
  const std::string expr = R"({"method": "arithmetic", "expression": "16384 / 4608"})";  // 3.556
  EXPECT_EQ(validate_claims(d, single("3.5", expr)).results[0].verdict, Verdict::kDoesNotHold);
  EXPECT_EQ(
      validate_claims(d, single("3.5", expr, R"("tolerance": {"abs": 0.1}, )")).results[0].verdict,
      Verdict::kHolds);
  EXPECT_EQ(
      validate_claims(d, single("3.6", expr, R"("tolerance": {"rel": 0.02}, )")).results[0].verdict,
      Verdict::kHolds);
  EXPECT_EQ(validate_claims(d, single("4", expr, R"("compare": "at_most", )")).results[0].verdict,
            Verdict::kHolds);
  EXPECT_EQ(validate_claims(d, single("4", expr, R"("compare": "at_least", )")).results[0].verdict,
            Verdict::kDoesNotHold);
  EXPECT_EQ(validate_claims(d, single(R"({"min": 3, "max": 4})", expr)).results[0].verdict,
            Verdict::kHolds);
}

TEST(Verdict, TypeMismatchNamesTheClaim) {
  const model::DeviceSpec d = model::load_device("m4max");
  try {
    validate_claims(d, single(R"("yes")", R"({"method": "mma_op", "quantity": "flops"})"));
    FAIL() << "expected InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("t/1/x"), std::string::npos);
  }
  try {
    validate_claims(d, single("1", R"({"method": "budget", "tile": "60x64x32",
        "variant": "fused", "part": "total"})"));
    FAIL() << "expected InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("t/1/x"), std::string::npos);
  }
}

TEST(Report, MarkdownAndJsonCarryEveryClaimAndTheSummary) {
  const ValidationReport& report = shipped_report("m4max");
  std::ostringstream md;
  write_markdown(md, report);
  const std::string text = md.str();
  EXPECT_NE(text.find("## tile-sizing-m4max.md"), std::string::npos);
  EXPECT_NE(text.find("## architecture.md"), std::string::npos);
  EXPECT_NE(text.find("## stripe-partitioning.md"), std::string::npos);
  EXPECT_NE(text.find("| does not hold | " + std::to_string(report.does_not_hold) + " |"),
            std::string::npos);
  const nlohmann::json json = to_json(report);
  EXPECT_EQ(json["claims"].size(), report.results.size());
  EXPECT_EQ(json["summary"]["holds"].get<int>() + json["summary"]["does_not_hold"].get<int>() +
                json["summary"]["cannot_check"].get<int>(),
            static_cast<int>(report.results.size()));
  EXPECT_EQ(json["device"], "m4max");
  std::ostringstream summary;
  write_summary(summary, report);
  EXPECT_NE(summary.str().find("tile-sizing/3.1/mma-flops"), std::string::npos);
  EXPECT_EQ(corrections(report).size(), static_cast<std::size_t>(report.does_not_hold));
}

}  // namespace
}  // namespace marlin::validate
