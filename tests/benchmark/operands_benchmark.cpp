// Google Benchmark of the operands `marlin-sim run` draws before the engine starts: A and the
// FP4 weights (groups of 128) of a decode shape, drawn from a seed and quantized
// (kernels/launch/problem_operands.h). Wall time: the draws use a helper thread.
//
// items = weights drawn and quantized.
#include <benchmark/benchmark.h>

#include "kernels/launch/problem_operands.h"

namespace marlin::kernels {
namespace {

void BM_DrawDecodeOperands(benchmark::State& state) {
  const GemmProblem problem{.m = 16, .n = 4096, .k = state.range(0)};
  const WeightFormat format{WeightFormatKind::kFp4E2M1, 128};
  for (auto _ : state) {
    const ProblemOperands operands(problem, format, 1);
    benchmark::DoNotOptimize(operands.packed.codes.data());
  }
  state.SetItemsProcessed(state.iterations() * problem.n * problem.k);
}
BENCHMARK(BM_DrawDecodeOperands)->Arg(11008)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace marlin::kernels
