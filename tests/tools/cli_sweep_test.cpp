// `marlin-sim sweep`: rankings, shards and merge, the dispatch table.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "kernels/launch/selection_table.h"
#include "tests/tools/cli_runner.h"

namespace marlin::cli::testing {
namespace {

const std::vector<std::string> kSweep = {"sweep",
                                         "--m",
                                         "1,9",
                                         "--n",
                                         "70",
                                         "--k",
                                         "64",
                                         "--kernels",
                                         "marlin_gemm_fused_fp4,marlin_gemm_fp4",
                                         "--tiles",
                                         "64x64x32,32x128x32,64x64x64",
                                         "--host-threads",
                                         "2"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(CliSweep, ShardsMergeToTheWholeSweepAndTheTableIsTheFastest) {
  const std::string dir = ::testing::TempDir();
  const CliResult whole = run_cli(with(kSweep, {"--json"}));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const nlohmann::json all = nlohmann::json::parse(whole.out);
  // 2 M values x (2 kernels x 3 tiles) = 12 configurations; the double-buffered 64x64x64 is
  // refused at both M.
  ASSERT_EQ(all.at("results").size(), 12u);
  int refused = 0;
  for (const nlohmann::json& r : all.at("results")) refused += r.at("refused").get<bool>();
  EXPECT_EQ(refused, 2);

  for (const std::string shard : {"0/2", "1/2"}) {
    const CliResult part = run_cli(
        with(kSweep, {"--shard", shard, "--out", dir + "shard" + shard.substr(0, 1) + ".json"}));
    ASSERT_EQ(part.exit_code, 0) << part.err;
  }
  const CliResult merged =
      run_cli({"sweep", "--merge", dir + "shard0.json", dir + "shard1.json", "--json", "--table",
               dir + "table.json", "--source", dir + "table.h"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  const nlohmann::json merged_json = nlohmann::json::parse(merged.out);
  EXPECT_EQ(merged_json.at("results"), all.at("results"));
  EXPECT_EQ(merged_json.at("dispatch_table"), all.at("dispatch_table"));

  // The table's rule for each M is the configuration with the fewest cycles at that M.
  const kernels::SelectionTable table =
      kernels::SelectionTable::from_json(nlohmann::json::parse(read_file(dir + "table.json")));
  for (const std::int64_t m : {1, 9}) {
    std::int64_t best_cycles = -1;
    std::string best_tile;
    for (const nlohmann::json& r : all.at("results")) {
      if (r.at("m") != m || r.at("refused").get<bool>()) continue;
      if (best_cycles < 0 || r.at("cycles").get<std::int64_t>() < best_cycles) {
        best_cycles = r.at("cycles").get<std::int64_t>();
        best_tile = r.at("tile").get<std::string>();
      }
    }
    EXPECT_EQ(analytic::tile_name(table.rule_for(m).tile), best_tile) << m;
  }
  EXPECT_NE(read_file(dir + "table.h").find("inline TileChoice select_tile(unsigned m)"),
            std::string::npos);
}

TEST(CliSweep, BadInput) {
  const std::vector<std::vector<std::string>> bad = {
      with(kSweep, {"--shard", "2/2"}),
      with(kSweep, {"--shard", "1"}),
      {"sweep", "--m", "1", "--n", "8"},
      {"sweep", "--m", "1", "--n", "8", "--k", "8", "--kernels", "marlin_gemm_fp8"},
      {"sweep", "--m", "1", "--n", "8", "--k", "8", "--group-size", "12"},
      with(kSweep, {"--shard", "0/2", "--table", "/tmp/x.json"}),
      {"sweep", "--merge", "/nonexistent/shard.json"}};
  for (const auto& args : bad) {
    const CliResult result = run_cli(args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(result.err.rfind("marlin-sim: error: ", 0), 0u) << result.err;
  }
}

}  // namespace
}  // namespace marlin::cli::testing
