// Helpers shared by the engine tests: launch specs with test device limits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/runtime/launch.h"

namespace marlin::sim::testing {

// Limits of a typical Apple GPU as plain numbers (the engine takes whatever it is given).
inline DeviceLimits test_limits() { return DeviceLimits{1024, 32768}; }

template <class T>
BufferArg buffer(std::vector<T>& v) {
  return BufferArg{v.data(), v.size() * sizeof(T)};
}
template <class T>
BufferArg buffer(T& object) {
  return BufferArg{&object, sizeof(T)};
}

inline LaunchSpec spec(const std::string& kernel, Dim3 threadgroups, Dim3 threads) {
  LaunchSpec s;
  s.kernel = kernel;
  s.threadgroups = threadgroups;
  s.threads_per_threadgroup = threads;
  s.limits = test_limits();
  return s;
}

// The non-ALU ops of a trace, in order.
inline std::vector<TraceOp> non_alu(const SimdgroupTrace& t) {
  std::vector<TraceOp> ops;
  for (const TraceOp& op : t.ops) {
    if (op.op != OpClass::kAlu) ops.push_back(op);
  }
  return ops;
}

}  // namespace marlin::sim::testing
