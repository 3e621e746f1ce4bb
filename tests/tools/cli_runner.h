// Runs the marlin-sim command line in-process and captures what it prints.
#pragma once

#include <fstream>
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

// The whole text of a file the command line wrote ("" if it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace marlin::cli::testing
