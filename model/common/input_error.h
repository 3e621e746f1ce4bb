// InputError: bad input from a user (profile, command line, workload, kernel launch).
//
// Contract: the message is one line that names what is wrong (file, JSON path, flag or
// argument) and needs no stack trace to act on. The command line prints it as
// "marlin-sim: error: <message>" and exits non-zero. Broken internal invariants are not
// InputErrors; they use MARLIN_CHECK (invariant.h).
#pragma once

#include <stdexcept>
#include <string>

namespace marlin {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace marlin
