// One `marlin-sim run`: a kernel of the catalog on random operands of a given shape, executed
// on the engine, optionally checked against the CPU reference, and replayed by the timing
// model of the device. Computed here, printed by run_report.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "kernels/launch/gemm_runner.h"
#include "model/analytic/intensity.h"
#include "model/analytic/occupancy.h"
#include "model/device/device_spec.h"
#include "model/timing/chrome_trace.h"
#include "model/timing/timing_run.h"
#include "tools/cli/sampling.h"

namespace marlin::cli {

struct KernelRunRequest {
  std::string kernel;                  // family name
  std::optional<analytic::Tile> tile;  // required for the Marlin families
  kernels::GemmProblem problem;
  int group_size = 128;    // rows of K per scale; kernels::kPerColumnGroup
  bool check = false;      // compare with the double-precision reference
  std::uint64_t seed = 1;  // operands are drawn from this seed
  unsigned host_threads = 1;
  bool sample = false;   // sampled simulation (sampling.h); no --check or --trace
  int sample_cores = 1;  // cores of the device the sampled run simulates
  SamplePrecision sample_precision = SamplePrecision::kFast;
  // Caps the resident threadgroups per core the timing model admits (0: the occupancy rule's).
  int max_resident_threadgroups = 0;
  // Bound on the engine's traces in bytes (0: default_trace_limit_bytes(), host_memory.h), for
  // runs that keep them whole (not streamed).
  std::uint64_t max_trace_bytes = 0;
  // Full-fidelity runs of one dispatch without a trace file stream the engine's traces into the
  // replay (same results); false keeps them whole.
  bool stream_traces = true;
  // Runs build the traces of alike threadgroups by translation (alike_threadgroups(),
  // sampling.h; the same traces): sampled runs do not run them, full runs run them untraced.
  // False traces every threadgroup on the engine.
  bool translate_alike = true;
  // Full-fidelity runs write their progress here (`run`: a terminal's stderr) from `progress_after`
  // on, one line rewritten in place (run_progress.h); null: none. The report does not change.
  std::ostream* progress = nullptr;
  std::chrono::milliseconds progress_after{2000};
  std::string trace_path;                    // --trace: Chrome trace file; empty = none
  timing::ChromeTraceOptions trace_options;  // its bound and sampling
};

// The Chrome trace written by a run (--trace).
struct TraceReport {
  std::string path;
  timing::ChromeTraceOptions options;
  timing::ChromeTraceSummary summary;
};

struct DispatchReport {
  std::string kernel;
  sim::Dim3 threadgroups;
  sim::Dim3 threads;
  std::uint64_t threadgroup_memory_bytes = 0;
  analytic::OccupancyResult occupancy;  // theoretical, from the family's rule
};

struct KernelRunReport {
  kernels::GemmKernel kernel;
  kernels::GemmProblem problem;
  std::string weights;  // e.g. "fp4_e2m1/g128"
  std::vector<DispatchReport> dispatches;
  timing::TimingResult timing;
  double useful_flops = 0;               // 2 M N K
  analytic::ProblemIntensity intensity;  // whole problem against DRAM
  analytic::Roofline roofline;
  std::optional<double> check_error;  // relative Frobenius error, with --check
  double check_bound = 1e-3;
  std::int64_t unwritten = 0;     // output elements left poisoned
  double functional_seconds = 0;  // host wall time of the engine
  double timing_seconds = 0;      // host wall time of the timing model (streamed:
                                  // after the engine's workers ended)
  // Host processor time of every thread of the process over the same span as the two wall
  // times above (sampled runs: the whole sampled run), user and system.
  double host_cpu_seconds = 0;
  bool streamed = false;  // the replay ran beside the engine
  // Full runs: the threadgroups of every dispatch, those whose traces the engine built by
  // translation (they ran untraced), and those of them it ran in batches (sim::BatchRun).
  std::uint64_t threadgroups = 0;
  std::uint64_t translated_threadgroups = 0;
  std::uint64_t batched_threadgroups = 0;
  std::optional<TraceReport> trace;        // with --trace
  std::optional<SamplingReport> sampling;  // with --sample
};

// How the analytical model sees a stored weight format: FP16, FP4, or u4 with or without zero
// points, with its scale grouping. For the formats the GEMM kernels take (int8 has none).
analytic::WeightSpec analytic_weight_spec(const kernels::WeightFormat& format);

// Host cores busy on average over a run's engine and timing model: its host processor time
// over its wall time (0 for a run of no measurable wall time).
double host_cores_busy(const KernelRunReport& r);

// Throws InputError for an unknown kernel or tile, a configuration the device refuses, a
// shape the kernel cannot run, or a trace file that cannot be written (naming --trace).
KernelRunReport run_kernel(const model::DeviceSpec& device, const KernelRunRequest& request);

}  // namespace marlin::cli
