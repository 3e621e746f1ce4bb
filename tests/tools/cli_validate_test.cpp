// `marlin-sim validate` and the validation part of the main job.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.h"

namespace marlin::cli::testing {
namespace {

TEST(CliValidate, JsonCountsAddUpAndAKnownCorrectionIsThere) {
  const CliResult result = run_cli({"validate", "--device", "m4max", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  const nlohmann::json& results = json.at("claims");
  int holds = 0;
  int not_hold = 0;
  int cannot = 0;
  bool found_mma = false;
  for (const nlohmann::json& r : results) {
    const std::string verdict = r.at("verdict");
    holds += verdict == "holds";
    not_hold += verdict == "does_not_hold";
    cannot += verdict == "cannot_check";
    // One 8x8x8 multiply-accumulate: 8*8*8 = 512 FMAs = 1024 FLOPs, not the stated 256.
    if (verdict == "does_not_hold" && r.at("corrected").is_string() &&
        r.at("corrected").get<std::string>().find("1024") != std::string::npos) {
      found_mma = true;
    }
  }
  EXPECT_EQ(holds + not_hold + cannot, static_cast<int>(results.size()));
  EXPECT_EQ(json.at("summary").at("holds"), holds);
  EXPECT_EQ(json.at("summary").at("does_not_hold"), not_hold);
  EXPECT_EQ(json.at("summary").at("total"), static_cast<int>(results.size()));
  EXPECT_TRUE(found_mma);
}

TEST(CliValidate, WritesTheMarkdownReport) {
  const std::string path = ::testing::TempDir() + "validate_report.md";
  const CliResult result = run_cli({"validate", "--device", "m1", "--report", path});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("full report: " + path), std::string::npos);
  const std::string report = read_file(path);
  EXPECT_NE(report.find("tile-sizing-m4max.md"), std::string::npos);
  EXPECT_NE(report.find("does not hold"), std::string::npos);
}

TEST(CliValidate, BadClaimsFileAndUnwritableReport) {
  const std::string bad = ::testing::TempDir() + "bad_claims.json";
  std::ofstream(bad) << R"({"format": 1, "claims": [{"id": "x"}]})";
  CliResult result = run_cli({"validate", "--claims", bad});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("x"), std::string::npos);
  result = run_cli({"validate", "--report", "/nonexistent-dir/report.md"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--report"), std::string::npos);
}

TEST(CliMainJob, PrintsTheSummaryAndWhereTheReportIs) {
  const std::string path = ::testing::TempDir() + "main_report.md";
  const CliResult result = run_cli({"--device", "m4max", "--report", path});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("validation of the seed analyses on m4max"), std::string::npos);
  EXPECT_NE(result.out.find("full report: " + path), std::string::npos);
  EXPECT_FALSE(read_file(path).empty());
}

}  // namespace
}  // namespace marlin::cli::testing
