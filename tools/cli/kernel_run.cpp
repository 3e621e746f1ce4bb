#include "tools/cli/kernel_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <fstream>
#include <future>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "kernels/host/reference_gemm.h"
#include "kernels/host/test_inputs.h"
#include "kernels/launch/problem_operands.h"
#include "model/common/input_error.h"
#include "model/timing/gpu_timing_model.h"
#include "model/timing/trace_stream.h"
#include "tools/cli/format.h"
#include "tools/cli/host_cpu.h"
#include "tools/cli/host_memory.h"
#include "tools/cli/run_progress.h"
#include "tools/cli/sample_l2.h"

namespace marlin::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Threadgroups a streamed run's engine may finish ahead of the replay's next dispatch: one
// wave (every core's resident threadgroups), so that the engine runs the next wave while the
// replay runs this one, and at least kMinStreamWindow. The same at any host thread count (it
// enters the trace limit's verdict).
constexpr std::uint32_t kMinStreamWindow = 8;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// How often a full run's progress line is rewritten.
constexpr std::chrono::milliseconds kProgressPeriod{1000};

// What a full run's progress line (KernelRunRequest::progress) reads while the run goes on.
struct FullRunProgress {
  enum class Phase : int { kDrawing, kRunning, kChecking };
  std::atomic<Phase> phase{Phase::kDrawing};
  std::uint64_t threadgroups = 0;       // of the launch; 0: not known (several dispatches)
  std::atomic<std::uint64_t> run{0};    // by the engine (sim::LaunchOptions)
  std::atomic<std::uint64_t> ended{0};  // in the replay (timing::TimingOptions)
  const Clock::time_point start = Clock::now();

  [[nodiscard]] std::string line() const {
    const std::string elapsed = fmt::format("{:.0f} s", seconds_since(start));
    switch (phase.load(std::memory_order_relaxed)) {
      case Phase::kDrawing:
        return fmt::format("run: drawing the operands, {}", elapsed);
      case Phase::kChecking:
        return fmt::format("run: checking against the reference, {}", elapsed);
      case Phase::kRunning:
        break;
    }
    const auto count = [&](const std::atomic<std::uint64_t>& n) {
      const std::string done = format_count(static_cast<std::int64_t>(n.load()));
      return threadgroups == 0 ? done
                               : done + "/" + format_count(static_cast<std::int64_t>(threadgroups));
    };
    return fmt::format("run: engine {} threadgroups, timing model {}, {}", count(run), count(ended),
                       elapsed);
  }
};

}  // namespace

analytic::WeightSpec analytic_weight_spec(const kernels::WeightFormat& format) {
  analytic::WeightSpec spec;
  switch (format.kind) {
    case kernels::WeightFormatKind::kFp16:
      return spec;
    case kernels::WeightFormatKind::kFp4E2M1:
      spec.format = analytic::WeightFormat::kFp4;
      break;
    case kernels::WeightFormatKind::kU4B8:
    case kernels::WeightFormatKind::kU4ZeroPoint:
    case kernels::WeightFormatKind::kInt8:
      spec.format = analytic::WeightFormat::kU4;
      break;
  }
  spec.zero_points = format.has_zero_points();
  if (format.group_size == kernels::kPerColumnGroup) {
    spec.scales = analytic::ScaleMode::kPerColumn;
  } else {
    spec.scales = analytic::ScaleMode::kPerGroup;
    spec.group_size = format.group_size;
  }
  return spec;
}

namespace {

bool is_main_dispatch(const std::string& kernel) {
  return kernel.rfind("marlin_zero", 0) != 0 && kernel.rfind("marlin_reduce", 0) != 0;
}

// The theoretical occupancy of a dispatch; throws InputError if the device refuses it.
analytic::OccupancyResult dispatch_occupancy(const model::DeviceSpec& device,
                                             const std::string& kernel, std::uint64_t threads,
                                             std::uint64_t threadgroup_memory_bytes) {
  analytic::OccupancyResult occupancy = analytic::launch_occupancy(
      device, static_cast<int>(threads), static_cast<std::int64_t>(threadgroup_memory_bytes));
  if (occupancy.refused) {
    throw InputError(
        fmt::format("{} refuses {}: {}", device.name, kernel, occupancy.refusal_reason));
  }
  return occupancy;
}

// The dispatches of a run as the report shows them, with their theoretical occupancy; throws
// InputError if the device refuses one.
std::vector<DispatchReport> describe_dispatches(const model::DeviceSpec& device,
                                                const kernels::GemmRun& run) {
  std::vector<DispatchReport> out;
  for (const kernels::GemmDispatch& d : run.dispatches) {
    out.push_back({d.kernel, d.threadgroups, d.threads_per_threadgroup,
                   d.result.threadgroup_memory_bytes,
                   dispatch_occupancy(device, d.kernel, d.threads_per_threadgroup.volume(),
                                      d.result.threadgroup_memory_bytes)});
  }
  return out;
}

// Threadgroups the timing model keeps resident per core: the occupancy's, at most
// `max_resident` when that is positive.
int resident_threadgroups(const analytic::OccupancyResult& occupancy, int max_resident) {
  const auto resident = static_cast<int>(occupancy.resident_threadgroups);
  return max_resident > 0 ? std::min(resident, max_resident) : resident;
}

// Timing-model inputs of a run's dispatches over `traces` (one per dispatch, outliving them).
std::vector<timing::LaunchInput> timing_inputs(const std::vector<DispatchReport>& dispatches,
                                               const std::vector<const sim::LaunchTrace*>& traces,
                                               double useful_flops, int max_resident) {
  std::vector<timing::LaunchInput> inputs;
  for (std::size_t i = 0; i < dispatches.size(); ++i) {
    timing::LaunchInput input;
    input.trace = traces[i];
    input.resident_threadgroups_per_core =
        resident_threadgroups(dispatches[i].occupancy, max_resident);
    input.useful_flops = is_main_dispatch(dispatches[i].kernel) ? useful_flops : 0;
    inputs.push_back(input);
  }
  return inputs;
}

sim::LaunchOptions engine_options(const KernelRunRequest& request) {
  sim::LaunchOptions options;
  options.host_threads = request.host_threads;
  options.max_trace_bytes =
      request.max_trace_bytes != 0 ? request.max_trace_bytes : default_trace_limit_bytes();
  return options;
}

// A replay uses the run's host threads once its first threadgroups are dispatched (a streamed
// full run's once the engine's workers are done; each sample's of a sampled run, beside the
// others).
timing::TimingOptions replay_timing_options(const KernelRunRequest& request) {
  timing::TimingOptions options;
  options.replay_threads = static_cast<int>(std::max(1U, request.host_threads));
  return options;
}

sim::DeviceLimits engine_limits(const model::DeviceSpec& device) {
  return {static_cast<std::uint32_t>(device.limits.max_threads_per_threadgroup),
          static_cast<std::uint64_t>(device.limits.max_threadgroup_memory_bytes)};
}

// Adds the threadgroups of a run's dispatches, those whose traces the engine built by
// translation and those of them it ran in batches to the report's counts.
void add_threadgroup_counts(const kernels::GemmRun& run, KernelRunReport& report) {
  for (const kernels::GemmDispatch& d : run.dispatches) {
    report.threadgroups += d.result.stats.threadgroups;
    report.translated_threadgroups += d.result.stats.threadgroups_translated;
    report.batched_threadgroups += d.result.stats.threadgroups_batched;
  }
}

// A full run's engine options: every threadgroup runs, and the alike ones' traces come by
// translation (alike_threadgroups(), sampling.h; the same traces) unless the request says not.
sim::LaunchOptions full_run_engine_options(const KernelRunRequest& request,
                                           const KernelRunReport& report) {
  sim::LaunchOptions options = engine_options(request);
  if (request.translate_alike) {
    options.alike = alike_threadgroups(report.kernel, report.problem);
    options.alike.execute = true;
  }
  return options;
}

// The engine's run of every threadgroup at the full K, then the timing model's replay of its
// whole traces (with --trace, recorded into the Chrome trace).
kernels::GemmRun run_whole(const model::DeviceSpec& device, const KernelRunRequest& request,
                           const kernels::GemmOperands& operands, std::ofstream& trace_file,
                           KernelRunReport& report, FullRunProgress& progress) {
  const double cpu_start = process_cpu_seconds();
  const Clock::time_point functional_start = Clock::now();
  sim::LaunchOptions options = full_run_engine_options(request, report);
  options.threadgroups_done = &progress.run;
  kernels::GemmRun run =
      kernels::run_gemm(report.kernel, report.problem, operands, engine_limits(device), options);
  report.functional_seconds = seconds_since(functional_start);

  report.dispatches = describe_dispatches(device, run);
  std::vector<const sim::LaunchTrace*> traces;
  for (const kernels::GemmDispatch& d : run.dispatches) traces.push_back(&d.result.trace);
  const std::vector<timing::LaunchInput> inputs = timing_inputs(
      report.dispatches, traces, report.useful_flops, request.max_resident_threadgroups);
  std::optional<timing::ChromeTraceSink> trace;
  if (trace_file.is_open()) {
    try {
      trace.emplace(device.gpu, inputs, request.trace_options);
    } catch (const InputError& error) {
      throw InputError(fmt::format("--trace-max-events, --trace-cores: {}", error.what()));
    }
  }
  const Clock::time_point timing_start = Clock::now();
  timing::TimingOptions replay_options = replay_timing_options(request);
  replay_options.threadgroups_ended = &progress.ended;
  report.timing =
      timing::GpuTimingModel(device, replay_options).run(inputs, trace ? &*trace : nullptr);
  report.timing_seconds = seconds_since(timing_start);
  report.host_cpu_seconds = process_cpu_seconds() - cpu_start;
  if (trace) {
    trace->write(trace_file);
    trace_file.close();
    if (!trace_file) {
      throw InputError(fmt::format("--trace: writing '{}' failed", request.trace_path));
    }
    report.trace = TraceReport{request.trace_path, request.trace_options, trace->summary()};
  }
  return run;
}

// Rethrows a streamed run's failure: the engine's or the replay's, whichever is not the abort
// the other side's failure caused (the engine's if both are real).
[[noreturn]] void rethrow_streamed_failure(const std::exception_ptr& engine,
                                           const std::exception_ptr& replay) {
  const auto aborted = [](const std::exception_ptr& e) {
    try {
      std::rethrow_exception(e);
    } catch (const timing::TraceStreamAborted&) {
      return true;
    } catch (...) {
      return false;
    }
  };
  if (engine && (!replay || !aborted(engine))) std::rethrow_exception(engine);
  std::rethrow_exception(replay);
}

// The engine's run of a one-dispatch launch with its traces streamed into the timing model's
// replay (timing/trace_stream.h) on a thread of its own, which starts once the engine has
// validated the launch: the replay of a launch's first waves overlaps the engine's run of its
// later ones, and only the resident threadgroups' traces are held. The results are those of
// run_whole(). functional_seconds ends when the engine's workers have run every threadgroup,
// timing_seconds is the replay's time after that.
kernels::GemmRun run_streamed(const model::DeviceSpec& device, const KernelRunRequest& request,
                              const kernels::GemmOperands& operands, KernelRunReport& report,
                              FullRunProgress& progress) {
  // The launch's residency, from its header, bounds the traces held at once (the engine's
  // thread computes it before any threadgroup runs; the replay's reads it after the header).
  int resident = 0;
  const std::uint64_t trace_limit = engine_options(request).max_trace_bytes;
  timing::TraceStream stream(kMinStreamWindow, [&](const sim::LaunchHeader& h) {
    resident = resident_threadgroups(
        dispatch_occupancy(device, h.kernel, h.thread_count(), h.threadgroup_memory_bytes),
        request.max_resident_threadgroups);
    const std::uint64_t grid = h.threadgroup_count();
    const std::uint64_t wave =
        static_cast<std::uint64_t>(device.gpu.cores) * static_cast<std::uint64_t>(resident);
    const auto window = static_cast<std::uint32_t>(std::max<std::uint64_t>(
        kMinStreamWindow,
        std::min<std::uint64_t>(wave, std::numeric_limits<std::uint32_t>::max())));
    const std::uint64_t at_once = wave + window;
    if (grid <= at_once) {
      return timing::HeldLimit{.threadgroups = grid,
                               .bytes = trace_limit,
                               .held = fmt::format("all {} of the launch", grid),
                               .window = window};
    }
    return timing::HeldLimit{.threadgroups = at_once,
                             .bytes = trace_limit,
                             .held = fmt::format("{} resident on each of {} cores and {} waiting",
                                                 resident, device.gpu.cores, window),
                             .window = window};
  });
  sim::LaunchOptions options = full_run_engine_options(request, report);
  options.trace_sink = &stream;
  // The replay is one thread beside the engine's: served first, it keeps pace with the engine
  // instead of being left a wave or more to replay after it (docs/performance.md). It takes
  // more host threads only once the engine's workers are done.
  options.workers_yield = true;
  std::atomic<bool> workers_done{false};
  // The engine's work ends with its workers'; what follows until run_gemm() returns is its
  // last translated threadgroups waiting for the replay to take them.
  std::optional<Clock::time_point> workers_end;
  options.workers_done = [&] {
    workers_end = Clock::now();
    workers_done.store(true, std::memory_order_relaxed);
  };
  options.threadgroups_done = &progress.run;
  timing::TimingOptions replay_options = replay_timing_options(request);
  replay_options.parallel_gate = &workers_done;
  replay_options.threadgroups_ended = &progress.ended;
  const double cpu_start = process_cpu_seconds();
  const Clock::time_point start = Clock::now();
  std::future<timing::TimingResult> timed = std::async(std::launch::async, [&] {
    try {
      (void)stream.header();
      const timing::LaunchInput input{.stream = &stream,
                                      .resident_threadgroups_per_core = resident,
                                      .useful_flops = report.useful_flops};
      return timing::GpuTimingModel(device, replay_options).run(input);
    } catch (...) {
      stream.abort();  // the engine stops at its next threadgroup
      throw;
    }
  });
  std::optional<kernels::GemmRun> run;
  std::exception_ptr engine_error;
  try {
    run.emplace(
        kernels::run_gemm(report.kernel, report.problem, operands, engine_limits(device), options));
  } catch (...) {
    engine_error = std::current_exception();
    stream.abort();  // the replay stops waiting for threadgroups
  }
  workers_done.store(true, std::memory_order_relaxed);  // also when the engine failed
  const Clock::time_point engine_end = workers_end.value_or(Clock::now());
  report.functional_seconds = std::chrono::duration<double>(engine_end - start).count();
  std::exception_ptr replay_error;
  try {
    report.timing = timed.get();
  } catch (...) {
    replay_error = std::current_exception();
  }
  report.timing_seconds = seconds_since(engine_end);
  report.host_cpu_seconds = process_cpu_seconds() - cpu_start;
  if (engine_error || replay_error) rethrow_streamed_failure(engine_error, replay_error);
  report.streamed = true;
  report.dispatches = describe_dispatches(device, *run);
  return std::move(*run);
}

// The full-fidelity run: every threadgroup at the full K, optionally traced and checked. A
// one-dispatch run without --trace streams its traces (run_streamed).
void run_full(const model::DeviceSpec& device, const KernelRunRequest& request,
              const kernels::WeightFormat& format, std::ofstream& trace_file,
              KernelRunReport& report) {
  const kernels::GemmProblem& p = report.problem;
  const bool one_dispatch = kernels::gemm_dispatch_count(report.kernel, p) == 1;
  FullRunProgress counts;
  if (one_dispatch) counts.threadgroups = main_grid(report.kernel, p).volume();
  std::optional<RunProgress> progress;
  if (request.progress != nullptr) {
    progress.emplace(
        *request.progress, [&counts] { return counts.line(); }, request.progress_after,
        kProgressPeriod);
  }
  kernels::ProblemOperands in(p, format, request.seed);
  counts.phase = FullRunProgress::Phase::kRunning;
  const bool stream = request.stream_traces && !trace_file.is_open() && one_dispatch;
  const kernels::GemmRun run =
      stream ? run_streamed(device, request, in.operands, report, counts)
             : run_whole(device, request, in.operands, trace_file, report, counts);
  report.unwritten = kernels::count_poisoned(run.c);
  add_threadgroup_counts(run, report);
  if (request.check) {
    counts.phase = FullRunProgress::Phase::kChecking;
    if (format.kind != kernels::WeightFormatKind::kFp16) in.dense = kernels::dequantize(in.packed);
    const std::vector<double> reference =
        kernels::reference_gemm(in.a, in.dense, p.m, p.n, p.k, in.bias, p.activation);
    report.check_error = kernels::relative_frobenius_error(run.c, reference);
    counts.phase = FullRunProgress::Phase::kRunning;  // the last line gives the counts
  }
}

// A sampled run's launches as the timing model takes them: each dispatch, renumbered to the
// slice when sliced, with the slice's share of the main dispatch's threadgroups, the
// problem's operand bytes (A, weights, scales, zero points) at the sampled K, and, once
// set_bytes_share() ran (only a DRAM-bound run needs it), the share of those bytes the
// slice's main dispatch loads.
struct SampledLaunches {
  std::vector<sim::LaunchTrace> traces;
  double share = 1;
  double bytes_share = 1;
  std::int64_t problem_bytes = 0;
  int sliced_main = -1;  // index in `traces` of the sliced main dispatch, or -1

  void set_bytes_share(int line_bytes) {
    if (sliced_main < 0) return;
    const auto own = static_cast<double>(
        distinct_loaded_bytes(traces[static_cast<std::size_t>(sliced_main)], line_bytes));
    bytes_share = std::clamp(own / static_cast<double>(problem_bytes), share, 1.0);
  }
};

SampledLaunches prepare_launches(kernels::GemmRun& run, bool sliced,
                                 const sim::ThreadgroupSlice& slice, const kernels::GemmProblem& q,
                                 const kernels::WeightFormat& format) {
  SampledLaunches out;
  const analytic::ProblemIntensity whole =
      analytic::problem_intensity({q.m, q.n, q.k}, analytic_weight_spec(format));
  out.problem_bytes = whole.total_bytes - whole.c_bytes;
  for (kernels::GemmDispatch& d : run.dispatches) {
    if (sliced && is_main_dispatch(d.kernel)) {
      out.share = static_cast<double>(threadgroups_in_slice(slice, d.threadgroups)) /
                  static_cast<double>(d.threadgroups.volume());
      out.sliced_main = static_cast<int>(out.traces.size());
    }
    out.traces.push_back(sliced ? compact_slice(std::move(d.result.trace))
                                : std::move(d.result.trace));
  }
  return out;
}

// One sampled run's launches waiting for the timing model; `inputs` point into `launches`.
struct PendingTiming {
  SampledLaunches launches;
  std::vector<timing::LaunchInput> inputs;
  std::int64_t l2_bytes = 0;  // the L2 capacity it replays with (sample_l2_bytes)
};

// Replays `job` on `device` on a thread of its own; `job` must outlive the future.
std::future<timing::TimingResult> replay_async(const PendingTiming& job, model::DeviceSpec device,
                                               timing::TimingOptions options) {
  return std::async(std::launch::async, [&job, device = std::move(device), options] {
    return timing::GpuTimingModel(device, options).run(job.inputs, nullptr);
  });
}

// Replays every pending run on the device `device_for` gives it, each on its own thread.
template <class DeviceFor>
std::vector<timing::TimingResult> replay_all(
    const std::vector<std::unique_ptr<PendingTiming>>& pending, DeviceFor device_for,
    const timing::TimingOptions& options) {
  std::vector<std::future<timing::TimingResult>> timed;
  for (const std::unique_ptr<PendingTiming>& job : pending) {
    timed.push_back(replay_async(*job, device_for(*job), options));
  }
  std::vector<timing::TimingResult> runs;
  for (std::future<timing::TimingResult>& result : timed) runs.push_back(result.get());
  return runs;
}

std::int64_t replayed_instructions(const std::vector<timing::TimingResult>& runs) {
  std::int64_t n = 0;
  for (const timing::TimingResult& run : runs) n += run.instructions;
  return n;
}

// The sampled run (sampling.h): a slice of the threadgroups at one or two reduced K values,
// extrapolated to the whole launch. Each K's timing replay runs on its own thread while the
// engine goes on to the next K (longest first); results do not depend on the overlap. The slice
// replays with the device's DRAM bandwidth unless that would make the launch move the problem's
// bytes faster than DRAM can; then all K values replay again with the slice's share of it, or
// the whole grid runs instead when it is small (dram_bound_runs_whole). `start` is when the
// sampled run began; the timing model's time is the time since then not spent in the engine.
void run_sampled(const model::DeviceSpec& device, const KernelRunRequest& request,
                 const kernels::WeightFormat& format, KernelRunReport& report,
                 Clock::time_point start) {
  const kernels::GemmProblem& p = report.problem;
  const sim::Dim3 grid = main_grid(report.kernel, p);
  const SamplingPlan plan = plan_sampling(device, report.kernel, p, request.group_size, grid,
                                          request.sample_cores, request.sample_precision);
  const bool sliced = plan.slice.x != 0;
  const bool precise = request.sample_precision == SamplePrecision::kPrecise;
  // A fast slice of a grid with several threadgroups per core that precise sampling runs whole.
  const bool precise_runs_whole = !precise && sliced &&
                                  grid.volume() > static_cast<std::uint64_t>(device.gpu.cores) &&
                                  plan_sampling(device, report.kernel, p, request.group_size, grid,
                                                request.sample_cores, SamplePrecision::kPrecise)
                                          .slice.x == 0;
  sim::LaunchOptions options = engine_options(request);
  options.slice = plan.slice;
  if (request.translate_alike) options.alike = alike_threadgroups(report.kernel, p);
  // The race and uninitialized-read sanitizer is for full runs (a slice at a reduced K checks
  // part of the launch); the trace does not depend on it. Out-of-bounds checks stay.
  options.check_threadgroup_memory = false;
  const std::size_t samples = plan.k_values.size();
  std::vector<std::unique_ptr<PendingTiming>> pending(samples);
  std::vector<std::future<timing::TimingResult>> timed(samples);
  const auto device_for = [&](const PendingTiming& job, bool dram_share) {
    if (sliced) {
      return slice_device(device, plan.cores, job.launches.share,
                          dram_share ? job.launches.bytes_share : 1.0);
    }
    model::DeviceSpec whole = device;
    whole.memory.l2.size_bytes = job.l2_bytes;
    return whole;
  };
  // A whole grid's K samples first replay with the device's L2, recording their L2 reuse
  // distances; they replay again with the L2 in proportion to their K when those say the full
  // run's L2 misses many more lines (sample_l2.h). Slices keep all of it (docs/sampling.md,
  // "The L2's capacity").
  const bool l2_checked = !sliced && samples == 2;
  // Each sample's replay runs its cores on the host threads once its first wave is dispatched
  // (a whole grid of one wave: from its start); a slice of one core stays on one thread. Only
  // the first replay records reuse distances, not the replays again below.
  const timing::TimingOptions replay_again = replay_timing_options(request);
  timing::TimingOptions replay_options = replay_again;
  replay_options.l2_reuse_distances = l2_checked;
  double work = 0;
  std::uint64_t translated = 0;  // threadgroups whose traces were built by translation
  std::uint64_t simulated_threadgroups = 0;
  // Every sample's operands are drawn at once, each on a thread of its own, before the engine
  // keeps the host's cores busy: the first sample waits for its own only.
  const auto sample_problem = [&](std::size_t i) {
    kernels::GemmProblem q = p;
    q.k = plan.k_values[i];
    return q;
  };
  // Only the operands the slice reads are drawn.
  const OperandRegion region = slice_operand_region(report.kernel, p, plan.slice);
  std::vector<std::future<std::unique_ptr<kernels::ProblemOperands>>> drawn(samples);
  for (std::size_t i = samples; i-- > 0;) {
    drawn[i] = std::async(std::launch::async,
                          [q = sample_problem(i), &format, seed = request.seed, region] {
                            return std::make_unique<kernels::ProblemOperands>(
                                q, format, seed, region.rows, region.columns);
                          });
  }
  // The longest K first: its replay overlaps the engine's shorter run, and the replay left to
  // run alone at the end is the shortest one.
  for (std::size_t i = samples; i-- > 0;) {
    const std::int64_t k = plan.k_values[i];
    const kernels::GemmProblem q = sample_problem(i);
    const std::unique_ptr<kernels::ProblemOperands> drawn_operands = drawn[i].get();
    const kernels::ProblemOperands& in = *drawn_operands;
    const Clock::time_point functional_start = Clock::now();
    kernels::GemmRun run =
        kernels::run_gemm(report.kernel, q, in.operands, engine_limits(device), options);
    report.functional_seconds += seconds_since(functional_start);
    for (const kernels::GemmDispatch& d : run.dispatches) {
      simulated_threadgroups += d.result.stats.threadgroups;
      translated += d.result.stats.threadgroups_translated;
    }
    const std::vector<DispatchReport> dispatches = describe_dispatches(device, run);
    if (i == 0) report.dispatches = dispatches;

    auto& job = *(pending[i] = std::make_unique<PendingTiming>());
    job.l2_bytes = device.memory.l2.size_bytes;
    job.launches = prepare_launches(run, sliced, plan.slice, q, format);
    work += job.launches.share * static_cast<double>(k);
    std::vector<const sim::LaunchTrace*> traces;
    for (const sim::LaunchTrace& trace : job.launches.traces) traces.push_back(&trace);
    job.inputs =
        timing_inputs(dispatches, traces, report.useful_flops, request.max_resident_threadgroups);
    timed[i] = replay_async(job, device_for(job, false), replay_options);
  }
  std::vector<timing::TimingResult> runs;
  for (std::future<timing::TimingResult>& result : timed) runs.push_back(result.get());
  std::optional<L2Overflow> overflow;
  if (l2_checked) {
    const std::array<timing::ReuseDistances, 2> reuse{std::move(runs[0].l2_reuse),
                                                      std::move(runs[1].l2_reuse)};
    overflow = l2_overflow(device.memory.l2, reuse, plan.k_values, p.k);
    if (overflow->added_misses >= kL2AddedMisses) {
      for (std::size_t i = 0; i < samples; ++i) {
        pending[i]->l2_bytes = sample_l2_bytes(device.memory.l2, plan.k_values[i], p.k);
      }
      runs = replay_all(
          pending, [&](const PendingTiming& job) { return device_for(job, false); }, replay_again);
    }
  }
  const SampledLaunches& last = pending.back()->launches;
  const bool saturated =
      sliced && saturates_dram(last.problem_bytes, runs.back().total_cycles, device);
  if (saturated && dram_bound_runs_whole(grid.volume())) {
    // The slice's runs count in the work, the instructions and the time of the whole grid's.
    KernelRunRequest whole = request;
    whole.sample_cores = device.gpu.cores;
    run_sampled(device, whole, format, report, start);
    report.sampling->dram_bound_whole = true;
    report.sampling->work_fraction += work / static_cast<double>(p.k);
    report.sampling->simulated_instructions += replayed_instructions(runs);
    return;
  }
  if (saturated) {
    for (const std::unique_ptr<PendingTiming>& job : pending) {
      job->launches.set_bytes_share(device.memory.l1.line_bytes);
    }
    runs = replay_all(
        pending, [&](const PendingTiming& job) { return device_for(job, true); }, replay_again);
  }
  // The timing model's share of the wall time is what the engine did not overlap.
  report.timing_seconds = std::max(0.0, seconds_since(start) - report.functional_seconds);
  report.timing =
      combine_sampled(runs, plan.k_values, p.k, last.share, device.gpu, report.useful_flops);
  std::vector<std::int64_t> l2_bytes;
  for (const std::unique_ptr<PendingTiming>& job : pending) l2_bytes.push_back(job->l2_bytes);
  const double largest = largest_measured_error(precise, sliced);
  report.sampling = SamplingReport{.precision = request.sample_precision,
                                   .k_values = plan.k_values,
                                   .l2_bytes = l2_bytes,
                                   .l2_overflow = overflow,
                                   .device_l2_bytes = device.memory.l2.size_bytes,
                                   .cores = plan.cores,
                                   .device_cores = device.gpu.cores,
                                   .share = last.share,
                                   .dram_share = saturated ? last.bytes_share : 1.0,
                                   .work_fraction = work / static_cast<double>(p.k),
                                   .simulated_instructions = replayed_instructions(runs),
                                   .translated_threadgroups = translated,
                                   .simulated_threadgroups = simulated_threadgroups,
                                   .largest_measured_error = largest,
                                   .precise_runs_whole = precise_runs_whole};
}

}  // namespace

double host_cores_busy(const KernelRunReport& r) {
  const double wall = r.functional_seconds + r.timing_seconds;
  return wall > 0 ? r.host_cpu_seconds / wall : 0.0;
}

KernelRunReport run_kernel(const model::DeviceSpec& device, const KernelRunRequest& request) {
  KernelRunReport report;
  if (request.sample && (request.check || !request.trace_path.empty())) {
    throw InputError(
        "--sample runs part of the threadgroups at a reduced K: it cannot be combined with "
        "--check or --trace");
  }
  // Opened first, so a bad path fails before the (possibly long) run.
  std::ofstream trace_file;
  if (!request.trace_path.empty()) {
    trace_file.open(request.trace_path, std::ios::out | std::ios::trunc);
    if (!trace_file) {
      throw InputError(fmt::format("--trace: cannot open '{}' for writing", request.trace_path));
    }
  }
  report.kernel = kernels::find_gemm_kernel(request.kernel, request.tile);
  kernels::GemmProblem p = request.problem;
  if (report.kernel.family == kernels::GemmFamily::kMarlinFp4Striped && p.num_threadgroups == 0) {
    // One full wave: every core holds as many threadgroups as its occupancy rule admits.
    const analytic::OccupancyResult occupancy = analytic::launch_occupancy(
        device, static_cast<int>(report.kernel.threads_x), report.kernel.threadgroup_bytes);
    p.num_threadgroups = static_cast<std::uint32_t>(
        std::max<std::int64_t>(1, occupancy.resident_threadgroups * device.gpu.cores));
  }
  report.problem = p;
  if (report.kernel.compiled && report.kernel.family != kernels::GemmFamily::kMatmulNaive &&
      report.kernel.threadgroup_bytes > device.limits.max_threadgroup_memory_bytes) {
    throw InputError(fmt::format("{} refuses {}: {} B of threadgroup memory, limit {} B",
                                 device.name, report.kernel.metal_name,
                                 report.kernel.threadgroup_bytes,
                                 device.limits.max_threadgroup_memory_bytes));
  }
  const kernels::WeightFormat format{report.kernel.weights, request.group_size};
  format.validate();
  report.weights = format.name();
  report.useful_flops =
      2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);

  if (request.sample) {
    const double cpu_start = process_cpu_seconds();
    run_sampled(device, request, format, report, Clock::now());
    report.host_cpu_seconds = process_cpu_seconds() - cpu_start;
  } else {
    run_full(device, request, format, trace_file, report);
  }

  report.intensity = analytic::problem_intensity({p.m, p.n, p.k}, analytic_weight_spec(format));
  report.roofline = analytic::roofline(analytic::roofline_machine(device),
                                       static_cast<double>(report.intensity.flops),
                                       static_cast<double>(report.intensity.total_bytes));
  return report;
}

}  // namespace marlin::cli
