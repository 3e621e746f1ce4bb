// The verbs' JSON output, checked against values worked out by hand from the profile numbers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/device/profile_loader.h"
#include "tests/tools/cli_runner.h"

namespace marlin::cli::testing {
namespace {

// As run_json, and nothing on stderr.
nlohmann::json run_quiet_json(const std::vector<std::string>& args) {
  const CliResult result = run_cli(args);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(result.err.empty()) << result.err;
  return nlohmann::json::parse(result.out);
}

TEST(CliJson, DevicesListsEveryShippedProfile) {
  const nlohmann::json json = run_quiet_json({"devices", "--json"});
  std::vector<std::string> names;
  for (const auto& device : json.at("devices")) names.push_back(device.at("name"));
  for (const std::string expected :
       {"m1", "m1max", "m2pro", "m3max", "m4max", "m4max-32c", "m4pro", "m4pro-16c"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
}

TEST(CliJson, DeviceFieldsCarryTheirSource) {
  const nlohmann::json json = run_quiet_json({"devices", "--device", "m4max", "--json"});
  const nlohmann::json& cores = json.at("fields").at("gpu.cores");
  EXPECT_EQ(cores.at("value"), "40");
  EXPECT_EQ(cores.at("kind"), "vendor");
  EXPECT_FALSE(cores.at("source").get<std::string>().empty());
  // 40 cores x 4 schedulers x 32 lanes x 2 FLOP per FMA x 1.578 GHz.
  EXPECT_DOUBLE_EQ(json.at("peak_fp16_flops").get<double>(), 40.0 * 4 * 32 * 2 * 1.578e9);
}

TEST(CliJson, StaticOccupancyBoundByThreadgroupMemory) {
  // m1 (static rule): 60 KiB threadgroup memory per core / 4608 B = 13.3 -> 13 threadgroups;
  // threads 3072 / 128 = 24, simdgroups 96 / 4 = 24; registers not given -> not applied.
  const model::DeviceSpec m1 = model::load_device("m1");
  ASSERT_EQ(m1.occupancy.threadgroup_memory_per_core_bytes, 60 * 1024);
  const nlohmann::json json = run_quiet_json(
      {"occupancy", "--device", "m1", "--threads", "128", "--tg-memory", "4608", "--json"});
  EXPECT_EQ(json.at("resident_threadgroups"), 13);
  EXPECT_EQ(json.at("resident_simdgroups"), 13 * 4);
  EXPECT_EQ(json.at("binding"), nlohmann::json::array({"threadgroup_memory"}));
  EXPECT_NEAR(json.at("occupancy_percent").get<double>(), 100.0 * 52 / 96, 1e-9);
}

TEST(CliJson, ByteSizesWithUnitsAreAccepted) {
  const nlohmann::json plain =
      run_quiet_json({"occupancy", "--device", "m1", "--threads", "64", "--tg-memory", "4608", "--json"});
  const nlohmann::json with_unit = run_quiet_json(
      {"occupancy", "--device", "m1", "--threads", "64", "--tg-memory", "4.5KiB", "--json"});
  EXPECT_EQ(plain.at("resident_threadgroups"), with_unit.at("resident_threadgroups"));
}

TEST(CliJson, IntensityOfTheDefaultTile) {
  // 64x64x32, fp4, no scales: 2*64*64*32 = 262,144 FLOPs over 64*32*2 + 32*64/2 = 5,120 B.
  const nlohmann::json json = run_quiet_json(
      {"intensity", "--tile", "64x64x32", "--weights", "fp4", "--group-size", "none", "--json"});
  EXPECT_EQ(json.at("iteration").at("flops"), 262144);
  EXPECT_DOUBLE_EQ(json.at("iteration").at("intensity").get<double>(), 262144.0 / 5120.0);
}

TEST(CliJson, IntensityOfAWholeDecodeProblem) {
  // M=1, N=8, K=16, fp16 weights: FLOPs 2*1*8*16 = 256; bytes A 32 + B 256 + C 16 = 304.
  const nlohmann::json json = run_quiet_json({"intensity", "--tile", "8x8x8", "--weights", "fp16", "--m",
                                        "1", "--n", "8", "--k", "16", "--json"});
  EXPECT_EQ(json.at("problem").at("flops"), 256);
  EXPECT_EQ(json.at("problem").at("total_bytes"), 304);
}

TEST(CliJson, MainJobRecomputesTheBudgets) {
  const std::string report = ::testing::TempDir() + "main_job_report.md";
  const nlohmann::json json = run_quiet_json({"--device", "m4max", "--json", "--report", report});
  EXPECT_EQ(json.at("report"), report);
  EXPECT_GT(json.at("validation").at("claims").size(), 100u);
  const nlohmann::json& variants = json.at("tile_sizing").at("variants");
  ASSERT_EQ(variants.size(), 10u);  // five tiles x two variants
  // 64x64x32 double-buffered: 2 buffers x (64*32 + 32*64) halves x 2 B = 16,384 B.
  EXPECT_EQ(variants[0].at("tile"), "64x64x32");
  EXPECT_EQ(variants[0].at("variant"), "separate");
  EXPECT_EQ(variants[0].at("budget_bytes"), 16384);
  // 64x64x32 fused: 64*32 halves x 2 B + 4 simdgroups x 8*8 halves x 2 B = 4,608 B.
  EXPECT_EQ(variants[1].at("budget_bytes"), 4608);
  // Waves follow from the resident count the same output reports: 64*64 = 4096 threadgroups.
  const std::int64_t slots = variants[1].at("resident_threadgroups").get<std::int64_t>() * 40;
  EXPECT_EQ(variants[1].at("waves_4096x4096").at("waves"), (4096 + slots - 1) / slots);
}

}  // namespace
}  // namespace marlin::cli::testing
