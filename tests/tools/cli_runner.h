// Runs the marlin-sim command line in-process and captures what it prints.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tools/cli/cli.h"

namespace marlin::cli::testing {

struct CliResult {
  int exit_code = 0;
  std::string out;
  std::string err;
};

inline CliResult run_cli(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"marlin-sim"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  std::ostringstream out;
  std::ostringstream err;
  const int code = run(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

// Runs the command line, expects exit code 0 and parses what it printed as JSON.
inline nlohmann::json run_json(const std::vector<std::string>& args) {
  const CliResult result = run_cli(args);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

// The whole text of a file the command line wrote ("" if it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes a profile `name`.json whose JSON text `profile` inherits m4max into a directory of
// its own under the test's temporary directory, beside a copy of m4max.json; returns its path.
inline std::string write_m4max_variant(const std::string& name, const std::string& profile) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("marlin-" + name);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(std::filesystem::path(MARLIN_SOURCE_DIR) / "profiles/m4max.json",
                             dir / "m4max.json", std::filesystem::copy_options::overwrite_existing);
  const std::filesystem::path path = dir / (name + ".json");
  std::ofstream(path) << profile;
  return path.string();
}

}  // namespace marlin::cli::testing
