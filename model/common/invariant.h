// MARLIN_CHECK: an always-on check of an internal invariant. A failure is a bug in
// marlin-sim, not bad input; it throws InvariantError naming the invariant and its place.
#pragma once

#include <stdexcept>
#include <string>

namespace marlin {

class InvariantError : public std::logic_error {
 public:
  explicit InvariantError(const std::string& message) : std::logic_error(message) {}
};

[[noreturn]] void invariant_failed(const char* condition, const char* file, int line,
                                   const std::string& what);

}  // namespace marlin

#define MARLIN_CHECK(condition, what)                                    \
  do {                                                                   \
    if (!(condition)) {                                                  \
      ::marlin::invariant_failed(#condition, __FILE__, __LINE__, (what)); \
    }                                                                    \
  } while (false)
