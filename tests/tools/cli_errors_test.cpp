// Bad input on the command line: one line on stderr, exit code 2, nothing on stdout.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/tools/cli_runner.h"

namespace marlin::cli::testing {
namespace {

struct BadInput {
  std::vector<std::string> args;
  std::string expected_fragment;  // must appear in the error line
};

class CliRejects : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliRejects, OneLineAndExitCodeTwo) {
  const BadInput& bad = GetParam();
  const CliResult result = run_cli(bad.args);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_EQ(result.err.rfind("marlin-sim: error: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(bad.expected_fragment), std::string::npos) << result.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliRejects,
    ::testing::Values(
        BadInput{{"frobnicate"}, "unknown verb 'frobnicate'"},
        BadInput{{"--device", "no-such-gpu"}, "no-such-gpu"},
        BadInput{{"--device", "/nonexistent/dir/x.json"}, "x.json"}, BadInput{{"--bogus"}, "bogus"},
        BadInput{{"devices", "extra"}, "unexpected word"},
        BadInput{{"occupancy"}, "--threads is required"},
        BadInput{{"occupancy", "--threads", "abc"}, "--threads: expected a whole number"},
        BadInput{{"occupancy", "--threads", "0"}, "--threads: expected a whole number"},
        BadInput{{"occupancy", "--threads", "-32"}, "--threads"},
        BadInput{{"occupancy", "--threads", "2048"}, "refuses this threadgroup"},
        BadInput{{"occupancy", "--threads", "128", "--tg-memory", "40000"},
                 "refuses this threadgroup"},
        BadInput{{"occupancy", "--threads", "128", "--tg-memory", "4 parsecs"}, "--tg-memory"},
        BadInput{{"occupancy", "--threads", "128", "--registers", "0"}, "--registers"},
        BadInput{{"occupancy", "--threads", "128", "--sweep", "bananas"}, "--sweep"},
        BadInput{{"occupancy", "--threads", "128", "--step", "64"}, "--step only applies"},
        BadInput{{"bench", "--repeat", "0"}, "--repeat: expected a whole number"},
        BadInput{{"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "16",
                  "--n", "1024", "--k", "256", "--max-trace-mb", "0"},
                 "--max-trace-mb: expected a whole number"},
        // 16 threadgroups of about 0.24 MB of traces each (packed), against a limit of 1 MB:
        // the striped kernel's threadgroups are not translated, so each holds its own.
        BadInput{{"run", "--kernel", "marlin_gemm_fp4_striped", "--tile", "64x64x32", "--m", "16",
                  "--n", "1024", "--k", "4096", "--max-trace-mb", "1"},
                 "over the trace limit of 1.0 MB; --sample simulates a slice"},
        BadInput{{"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "16",
                  "--n", "1024", "--k", "256", "--host-threads", "0"},
                 "--host-threads: expected a whole number"},
        BadInput{{"intensity"}, "--tile is required"},
        BadInput{{"intensity", "--tile", "64x64"}, "three dimensions"},
        BadInput{{"intensity", "--tile", "60x64x32"}, "multiple of 8"},
        BadInput{{"intensity", "--tile", "0x64x32"}, "multiple of 8"},
        BadInput{{"intensity", "--tile", "64x64x32", "--weights", "fp3"}, "--weights"},
        BadInput{{"intensity", "--tile", "64x64x32", "--m", "16"}, "go together"},
        BadInput{{"intensity", "--tile", "64x64x32", "--m", "0", "--n", "1", "--k", "1"}, "--m"},
        BadInput{{"intensity", "--tile", "64x64x32", "--weights", "fp16", "--group-size", "128"},
                 "fp16 weights have no scales"},
        BadInput{{"intensity", "--tile", "64x64x32", "--weights", "fp4", "--zero-points"},
                 "zero points"}));

TEST(CliHelp, EveryVerbHasHelp) {
  for (const std::string verb : {"devices", "occupancy", "intensity"}) {
    const CliResult result = run_cli({verb, "--help"});
    EXPECT_EQ(result.exit_code, 0) << verb;
    EXPECT_NE(result.out.find("usage: marlin-sim " + verb), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("--json"), std::string::npos) << verb;
  }
  const CliResult global = run_cli({"--help"});
  EXPECT_EQ(global.exit_code, 0);
  EXPECT_NE(global.out.find("occupancy"), std::string::npos);
}

}  // namespace
}  // namespace marlin::cli::testing
