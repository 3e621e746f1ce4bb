// The main job (`marlin-sim [--device D]` with no verb): the device summary and the
// tile-sizing analysis's tables (threadgroup-memory budgets, simdgroup layouts, occupancy,
// waves, arithmetic intensity) recomputed for the chosen device.
#pragma once

#include <string>
#include <vector>

#include "tools/cli/verb.h"

namespace marlin::cli {

int run_main_job(const std::vector<std::string>& args, Streams streams);

}  // namespace marlin::cli
