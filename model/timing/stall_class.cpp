#include "model/timing/stall_class.h"

namespace marlin::timing {

std::string_view stall_class_name(StallClass stall) {
  switch (stall) {
    case StallClass::kIssuing:
      return "issuing";
    case StallClass::kAluBusy:
      return "alu_busy";
    case StallClass::kMatrixBusy:
      return "matrix_busy";
    case StallClass::kMemoryWait:
      return "memory_wait";
    case StallClass::kThreadgroupMemoryWait:
      return "threadgroup_memory_wait";
    case StallClass::kBarrierWait:
      return "barrier_wait";
    case StallClass::kIssueWait:
      return "issue_wait";
    case StallClass::kIdle:
      return "idle";
    case StallClass::kTail:
      return "tail";
    case StallClass::kCount:
      break;
  }
  return "unknown";
}

}  // namespace marlin::timing
