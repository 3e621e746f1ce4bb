// Runs the marlin-sim command line in-process and captures what it prints.
#pragma once

#include <gtest/gtest.h>

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

}  // namespace marlin::cli::testing
