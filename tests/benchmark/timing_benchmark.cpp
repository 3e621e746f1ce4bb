// Google Benchmark of the timing model: the replay of one engine trace of
// marlin_gemm_fused_fp4 (tile 64x64x32, FP4 weights in groups of 128) on the m4max profile.
// The trace is recorded once; each iteration replays it from a cold device.
//
// items = simdgroup instructions replayed (an ALU run of n counts n). Three shapes:
// - decode (M = 16, N = 2048, K = 512): 32 threadgroups on 40 cores, one simdgroup per
//   scheduler, as in a full-fidelity decode run; replayed on one host thread, and on two as a
//   full-fidelity run does once nothing is left to dispatch (wall time);
// - wide decode (M = 16, N = 4096, K = 512): 64 threadgroups on 40 cores, two simdgroups per
//   scheduler on 24 of them, as in the 16x4096x11008 decode row of `marlin-sim bench`;
// - prefill (M = 256, N = 1024, K = 256): 64 threadgroups on a 1-core device, 13 resident,
//   13 simdgroups per scheduler competing for issue, as in a sampled slice.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "kernels/launch/gemm_runner.h"
#include "kernels/launch/kernel_catalog.h"
#include "kernels/launch/problem_operands.h"
#include "model/analytic/occupancy.h"
#include "model/device/profile_loader.h"
#include "model/timing/gpu_timing_model.h"
#include "model/timing/trace_stream.h"
#include "sim/runtime/trace_translation.h"

namespace {

using namespace marlin;

struct RecordedRun {
  kernels::GemmRun run;
  timing::LaunchInput input;
};

// The engine's trace of the fused kernel on `problem`, with the occupancy rule's residency.
RecordedRun record(const model::DeviceSpec& device, const kernels::GemmProblem& problem) {
  const kernels::GemmKernel kernel =
      kernels::find_gemm_kernel("marlin_gemm_fused_fp4", kernels::find_marlin_tile("64x64x32"));
  const kernels::ProblemOperands in(problem, {kernel.weights, 128}, 1);
  RecordedRun out;
  out.run = kernels::run_gemm(kernel, problem, in.operands, {1024, 32768}, sim::LaunchOptions{});
  const kernels::GemmDispatch& main = out.run.dispatches.back();
  const analytic::OccupancyResult occupancy =
      analytic::launch_occupancy(device, static_cast<int>(main.threads_per_threadgroup.volume()),
                                 static_cast<std::int64_t>(main.result.threadgroup_memory_bytes));
  out.input.trace = &main.result.trace;
  out.input.resident_threadgroups_per_core = static_cast<int>(occupancy.resident_threadgroups);
  return out;
}

void replay(benchmark::State& state, const model::DeviceSpec& device, const RecordedRun& recorded,
            timing::TimingOptions options = {}) {
  const timing::GpuTimingModel model(device, options);
  std::int64_t instructions = 0;
  for (auto _ : state) {
    const timing::TimingResult result = model.run(recorded.input);
    instructions = result.instructions;
    benchmark::DoNotOptimize(result.total_cycles);
  }
  state.SetItemsProcessed(state.iterations() * instructions);
}

void BM_TimingReplayDecode(benchmark::State& state) {
  static const model::DeviceSpec device = model::load_device("m4max");
  static const RecordedRun recorded = record(device, {.m = 16, .n = 2048, .k = 512});
  replay(state, device, recorded);
}
BENCHMARK(BM_TimingReplayDecode)->Unit(benchmark::kMillisecond);

void BM_TimingReplayWideDecode(benchmark::State& state) {
  static const model::DeviceSpec device = model::load_device("m4max");
  static const RecordedRun recorded = record(device, {.m = 16, .n = 4096, .k = 512});
  replay(state, device, recorded);
}
BENCHMARK(BM_TimingReplayWideDecode)->Unit(benchmark::kMillisecond);

void BM_TimingReplayDecodeParallel(benchmark::State& state) {
  static const model::DeviceSpec device = model::load_device("m4max");
  static const RecordedRun recorded = record(device, {.m = 16, .n = 2048, .k = 512});
  timing::TimingOptions options;
  options.replay_threads = 2;
  replay(state, device, recorded, options);
}
BENCHMARK(BM_TimingReplayDecodeParallel)->Unit(benchmark::kMillisecond)->UseRealTime();

// A launch of several waves (M = 1024, N = 4096, K = 128: 1,024 threadgroups, two waves of
// 13 per core on 40 cores), on one host thread and on two, which take it from its first wave.
void BM_TimingReplayWaves(benchmark::State& state) {
  static const model::DeviceSpec device = model::load_device("m4max");
  static const RecordedRun recorded = record(device, {.m = 1024, .n = 4096, .k = 128});
  timing::TimingOptions options;
  options.replay_threads = static_cast<int>(state.range(0));
  replay(state, device, recorded, options);
}
BENCHMARK(BM_TimingReplayWaves)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

std::uint32_t threadgroups_of(const sim::LaunchTrace& trace) {
  return trace.threadgroups_per_grid[0] * trace.threadgroups_per_grid[1] *
         trace.threadgroups_per_grid[2];
}

// Threadgroup `tg`'s traces of `trace`, whose threadgroups have as many simdgroups each.
std::vector<sim::SimdgroupTrace> traces_of(const sim::LaunchTrace& trace, std::uint32_t tg) {
  const auto sgs = static_cast<std::ptrdiff_t>(trace.simdgroups.size() / threadgroups_of(trace));
  return {trace.simdgroups.begin() + tg * sgs, trace.simdgroups.begin() + (tg + 1) * sgs};
}

// Replays `recorded` streamed: before each (timed) replay, `fill` puts the launch's
// threadgroups into a new stream (untimed); it returns false when it could not.
template <class Fill>
void replay_streamed(benchmark::State& state, const model::DeviceSpec& device,
                     const RecordedRun& recorded, Fill fill) {
  const sim::LaunchTrace& trace = *recorded.input.trace;
  const timing::GpuTimingModel model(device);
  std::int64_t instructions = 0;
  for (auto _ : state) {
    state.PauseTiming();
    timing::TraceStream stream(threadgroups_of(trace));
    stream.begin_launch({trace.kernel, trace.threadgroups_per_grid, trace.threads_per_threadgroup,
                         trace.threadgroup_memory_bytes});
    if (!fill(stream)) {
      state.SkipWithError("the stream did not take the traces");
      return;
    }
    timing::LaunchInput input = recorded.input;
    input.trace = nullptr;
    input.stream = &stream;
    state.ResumeTiming();
    const timing::TimingResult result = model.run(input);
    instructions = result.instructions;
    benchmark::DoNotOptimize(result.total_cycles);
  }
  state.SetItemsProcessed(state.iterations() * instructions);
}

// The same replay with the traces streamed, as a full-fidelity run replays them: held packed
// and unpacked as the replay advances (packed_trace.h).
void BM_TimingReplayDecodeStreamed(benchmark::State& state) {
  static const model::DeviceSpec device = model::load_device("m4max");
  static const RecordedRun recorded = record(device, {.m = 16, .n = 2048, .k = 512});
  const sim::LaunchTrace& trace = *recorded.input.trace;
  replay_streamed(state, device, recorded, [&](timing::TraceStream& stream) {
    for (std::uint32_t tg = 0; tg < threadgroups_of(trace); ++tg) {
      stream.put(tg, traces_of(trace, tg));
    }
    return true;
  });
}
BENCHMARK(BM_TimingReplayDecodeStreamed)->Unit(benchmark::kMillisecond);

// The same launch streamed as a full-fidelity run streams it with its threadgroups by
// translation: threadgroup 0's traces, and every other threadgroup as a reading of them moved
// by its buffers' shifts (sim::ThreadgroupTraceSink::put_translated).
void BM_TimingReplayDecodeTranslated(benchmark::State& state) {
  static const model::DeviceSpec device = model::load_device("m4max");
  static const RecordedRun recorded = record(device, {.m = 16, .n = 2048, .k = 512});
  const sim::LaunchTrace& trace = *recorded.input.trace;
  static const std::vector<sim::SimdgroupTrace> base = traces_of(trace, 0);
  static const std::vector<std::vector<sim::BufferShift>> shifts = [&] {
    std::vector<std::vector<sim::BufferShift>> out(threadgroups_of(trace));
    for (std::uint32_t tg = 1; tg < out.size(); ++tg) {
      out[tg] = sim::trace_shift(base, traces_of(trace, tg)).value().entries();
    }
    return out;
  }();
  replay_streamed(state, device, recorded, [&](timing::TraceStream& stream) {
    stream.put(0, base);
    for (std::uint32_t tg = 1; tg < threadgroups_of(trace); ++tg) {
      if (!stream.put_translated(tg, base, shifts[tg], traces_of(trace, tg)[0].threadgroup)) {
        return false;
      }
    }
    return true;
  });
}
BENCHMARK(BM_TimingReplayDecodeTranslated)->Unit(benchmark::kMillisecond);

void BM_TimingReplayOneCorePrefill(benchmark::State& state) {
  static const model::DeviceSpec device = [] {
    model::DeviceSpec d = model::load_device("m4max");
    d.gpu.cores = 1;
    return d;
  }();
  static const RecordedRun recorded = record(device, {.m = 256, .n = 1024, .k = 256});
  replay(state, device, recorded);
}
BENCHMARK(BM_TimingReplayOneCorePrefill)->Unit(benchmark::kMillisecond);

}  // namespace
