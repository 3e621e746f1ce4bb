#include "model/timing/trace_check.h"

#include <algorithm>
#include <cstdint>

namespace marlin::timing {

std::variant<std::size_t, TraceDefect> check_simdgroup_trace(const sim::SimdgroupTrace& sg) {
  std::size_t reach = 1;
  for (std::size_t k = 0; k < sg.ops.size(); ++k) {
    const sim::TraceOp& op = sg.ops[k];
    if (op.dep >= static_cast<std::int64_t>(k)) {
      return TraceDefect{k, "dep " + std::to_string(op.dep) + " is not an earlier op"};
    }
    if (op.dep >= 0) reach = std::max(reach, k - static_cast<std::size_t>(op.dep) + 1);
    if (op.op == sim::OpClass::kAlu && op.kind >= sim::kAluKindCount) {
      return TraceDefect{k, "ALU kind " + std::to_string(op.kind) + " is unknown"};
    }
    if (op.op == sim::OpClass::kAlu && !sim::chain_fits_run(op)) {
      return TraceDefect{k, "ALU chain " + std::to_string(op.chain) +
                                " is longer than its run of " + std::to_string(op.count)};
    }
    if (sim::has_accesses(op.op) && !sim::accesses_in_range(sg.accesses, op)) {
      return TraceDefect{k, "accesses beyond the simdgroup's access list"};
    }
  }
  return reach;
}

}  // namespace marlin::timing
