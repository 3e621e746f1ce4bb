#include "model/common/invariant.h"

namespace marlin {

void invariant_failed(const char* condition, const char* file, int line,
                      const std::string& what) {
  throw InvariantError(std::string("internal invariant broken: ") + what + " (" + condition +
                       ") at " + file + ":" + std::to_string(line));
}

}  // namespace marlin
