#include "tools/cli/verbs.h"

namespace marlin::cli {

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> kVerbs = {
      {"devices", "list device profiles, or every field of one with its source", run_devices},
      {"occupancy", "threadgroups per core, the binding limit and the next step", run_occupancy},
      {"intensity", "arithmetic intensity and roofline of a GEMM tile configuration",
       run_intensity},
      {"run", "run a kernel on the engine and predict its time on the device", run_run},
      {"validate", "check every numeric claim of the seed analyses on the device", run_validate},
      {"sweep", "rank kernels x tiles x shapes and write the dispatch table", run_sweep_verb},
      {"model", "time a workload graph of kernel launches: per layer, per token", run_model},
      {"bench", "the simulator's own speed against its targets", run_bench_verb},
  };
  return kVerbs;
}

}  // namespace marlin::cli
