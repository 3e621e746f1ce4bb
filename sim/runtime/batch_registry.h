// The registry of kernels' batched builds (batch_lane.h): the pre-pass's --batch output
// registers each kernel's batched entry point by its Metal name. A kernel without one runs
// its copies one by one.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "sim/runtime/batch_lane.h"

namespace marlin::sim {

// What a batched entry binds its kernel's parameters from (batch_binding.h).
struct BatchBindContext {
  BatchLane* lane = nullptr;
  const std::vector<Region>* buffers = nullptr;           // by [[buffer(n)]] index
  const std::vector<Region>* constant_buffers = nullptr;  // the same, seen as constant space
  const std::vector<Region>* threadgroup_args = nullptr;  // member 0's, by [[threadgroup(n)]]
  std::ptrdiff_t member_stride = 0;                       // from one member's arena to the next
};
using BatchKernelEntry = void (*)(BatchBindContext& context);

// The batched entry of kernel `name`, or nullptr if it has none.
BatchKernelEntry find_batch_kernel(std::string_view name);

struct BatchKernelRegistrar {
  BatchKernelRegistrar(const char* name, BatchKernelEntry entry);
};

}  // namespace marlin::sim
