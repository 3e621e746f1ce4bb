// What the profile's threadgroup-memory parameters say a calibration access costs: the
// reference the bank-conflict microbenchmarks are compared with (docs/calibration.md).
#pragma once

#include <string>

#include "model/device/device_spec.h"

namespace marlin::calibration {

// Pipe cycles of one 32-lane access where lane i reads the 4-byte word i * stride:
// max(most distinct words in one bank, ceil(128 bytes / bytes_per_cycle)), from the profile's
// banks, bank_width_bytes and bytes_per_cycle (the classic rule, docs/timing-model.md).
int expected_access_cycles(const model::ThreadgroupMemorySpec& spec, int stride);

// "threadgroup_memory.stride<S>_penalty_cycles": extra pipe cycles over stride 1.
std::string fmt_stride_name(int stride);

}  // namespace marlin::calibration
