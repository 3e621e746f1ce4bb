#include "kernels/launch/quantized_linear.h"

namespace marlin::kernels {

MarlinLinear::MarlinLinear(PackedWeights weights, SelectionTable table)
    : weights_(std::move(weights)), table_(std::move(table)) {
  weights_.validate();
  (void)table_.select(1, weights_.format.kind);  // rejects formats no GEMM kernel takes
}

GemmKernel MarlinLinear::kernel_for(std::int64_t m) const {
  return table_.select(m, weights_.format.kind);
}

std::vector<Half> MarlinLinear::forward(std::span<const Half> x, std::int64_t m,
                                        const sim::DeviceLimits& limits,
                                        const sim::LaunchOptions& options) const {
  const GemmKernel kernel = kernel_for(m);
  GemmProblem problem{m, weights_.n, weights_.k};
  problem.k_parallel =
      kernel.family == GemmFamily::kMarlinFp4Striped ? table_.rule_for(m).k_parallel : 1;
  GemmOperands operands;
  operands.a = x;
  operands.weights = &weights_;
  const GemmRun run = run_gemm(kernel, problem, operands, limits, options);
  return {run.c.begin(), run.c.end()};
}

std::vector<Half> quantized_linear(std::span<const Half> x, std::int64_t m,
                                   const PackedWeights& weights, const sim::DeviceLimits& limits) {
  return MarlinLinear(weights).forward(x, m, limits);
}

}  // namespace marlin::kernels
