// The marlin-sim command line: verb dispatch and the top-level error policy.
//
// Contract: run() never lets an exception escape. Bad input (unknown verb or flag, malformed
// number, unknown device, bad profile, a launch Metal would refuse) prints one line
// "marlin-sim: error: ..." on `err` and returns 2; a broken internal invariant prints
// "marlin-sim: internal error: ..." and returns 3. Success returns 0.
#pragma once

#include <ostream>

namespace marlin::cli {

// `err_is_terminal`: `err` is a terminal (Streams::err_is_terminal).
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
        bool err_is_terminal = false);

}  // namespace marlin::cli
