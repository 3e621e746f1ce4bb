// CoreCounters: the counters of the core model (schedulers, pipes, barriers, dispatcher),
// summed over all cores of the device. Registered once; the replay increments them by id.
// Every counter is defined in docs/timing-model.md ("Core counters").
#pragma once

#include "model/timing/stats.h"

namespace marlin::timing {

struct CoreCounters {
  CoreCounters();

  StatRegistry registry;
  StatId instructions;            // simdgroup instructions issued
  StatId alu_instructions;        // ALU, SIMD-collective and matrix fill/copy instructions
  StatId matrix_multiplies;       // 8x8x8 simdgroup multiply-accumulates
  StatId matrix_pipe_cycles;      // FP-pipe cycles held by matrix multiplies
  StatId device_memory_ops;       // device loads, stores, atomics, device matrix loads/stores
  StatId threadgroup_memory_ops;  // the same on threadgroup memory
  StatId threadgroup_barriers;    // barrier instructions issued (one per simdgroup)
  StatId simdgroup_barriers;
  StatId threadgroups;      // threadgroups dispatched
  StatId barrier_releases;  // threadgroup barriers completed (one per threadgroup)
};

}  // namespace marlin::timing
