// Entry points of the verbs; verbs.cpp lists them for dispatch and help.
#pragma once

#include <string>
#include <vector>

#include "tools/cli/verb.h"

namespace marlin::cli {

int run_devices(const std::vector<std::string>& args, Streams streams);
int run_occupancy(const std::vector<std::string>& args, Streams streams);
int run_intensity(const std::vector<std::string>& args, Streams streams);
int run_run(const std::vector<std::string>& args, Streams streams);
int run_validate(const std::vector<std::string>& args, Streams streams);
int run_sweep_verb(const std::vector<std::string>& args, Streams streams);
int run_model(const std::vector<std::string>& args, Streams streams);
int run_bench_verb(const std::vector<std::string>& args, Streams streams);

}  // namespace marlin::cli
