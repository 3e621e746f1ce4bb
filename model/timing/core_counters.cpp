#include "model/timing/core_counters.h"

namespace marlin::timing {

CoreCounters::CoreCounters()
    : instructions(registry.add_counter("instructions", "simdgroup instructions",
                                        "instructions issued by all schedulers")),
      alu_instructions(registry.add_counter(
          "alu_instructions", "simdgroup instructions",
          "ALU, SIMD shuffle/reduction/vote and matrix fill/copy instructions issued")),
      matrix_multiplies(registry.add_counter("matrix_multiplies", "simdgroup instructions",
                                             "8x8x8 simdgroup multiply-accumulates issued")),
      matrix_pipe_cycles(registry.add_counter(
          "matrix_pipe_cycles", "core cycles",
          "FP-pipe cycles held by matrix multiplies (sum of their throughput cycles)")),
      device_memory_ops(registry.add_counter(
          "device_memory_ops", "simdgroup instructions",
          "device loads, stores and atomics, including matrix loads/stores from device memory")),
      threadgroup_memory_ops(registry.add_counter(
          "threadgroup_memory_ops", "simdgroup instructions",
          "threadgroup-memory loads, stores and atomics, including matrix loads/stores")),
      threadgroup_barriers(registry.add_counter("threadgroup_barriers", "simdgroup instructions",
                                                "threadgroup_barrier instructions issued")),
      simdgroup_barriers(registry.add_counter("simdgroup_barriers", "simdgroup instructions",
                                              "simdgroup_barrier instructions issued")),
      threadgroups(registry.add_counter("threadgroups", "threadgroups", "threadgroups dispatched")),
      barrier_releases(registry.add_counter("barrier_releases", "barriers",
                                            "threadgroup barriers completed by a threadgroup")) {}

}  // namespace marlin::timing
