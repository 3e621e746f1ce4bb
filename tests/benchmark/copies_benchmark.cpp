// The engine alone on a full run's launch: marlin_gemm_fused_fp4 64x64x32 at 16 x 4096 x 1024
// (64 threadgroups in one row, 61 of them alike copies), its copies run one by one or in
// batches (sim/runtime/batch_run.h). The traces go to a sink that drops them, where a full run
// hands them to the timing model's replay. Figures: docs/engine.md, "Copies in batches".
#include <benchmark/benchmark.h>

#include <vector>

#include "kernels/launch/gemm_runner.h"
#include "kernels/launch/kernel_catalog.h"
#include "kernels/launch/problem_operands.h"
#include "sim/runtime/trace_sink.h"

namespace marlin {
namespace {

class DroppingSink final : public sim::ThreadgroupTraceSink {
 public:
  void begin_launch(const sim::LaunchHeader&) override {}
  std::vector<sim::SimdgroupTrace> put(std::uint32_t,
                                       std::vector<sim::SimdgroupTrace> traces) override {
    return traces;
  }
  bool put_translated(std::uint32_t, const std::vector<sim::SimdgroupTrace>&,
                      std::span<const sim::BufferShift>, std::array<std::uint32_t, 3>) override {
    return true;
  }
  void abort() noexcept override {}
};

// Arguments: batched copies (0 or 1), host threads.
void BM_EngineFullRunCopies(benchmark::State& state) {
  static const kernels::GemmProblem problem{.m = 16, .n = 4096, .k = 1024};
  static const kernels::GemmKernel kernel =
      kernels::find_gemm_kernel("marlin_gemm_fused_fp4", kernels::find_marlin_tile("64x64x32"));
  static const kernels::ProblemOperands in(problem, {kernels::WeightFormatKind::kFp4E2M1, 128}, 1);
  DroppingSink sink;
  sim::LaunchOptions options;
  options.alike = {64, 1, true};
  options.alike.batch = state.range(0) != 0;
  options.host_threads = static_cast<unsigned>(state.range(1));
  options.trace_sink = &sink;
  std::uint64_t threadgroups = 0;
  for (auto _ : state) {
    const kernels::GemmRun run =
        kernels::run_gemm(kernel, problem, in.operands, {1024, 32768}, options);
    threadgroups = run.dispatches.back().result.stats.threadgroups;
    benchmark::DoNotOptimize(run.c.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * threadgroups));
}
BENCHMARK(BM_EngineFullRunCopies)
    ->Args({0, 1})
    ->Args({1, 1})
    ->Args({1, 2})
    ->ArgNames({"batched", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace marlin
