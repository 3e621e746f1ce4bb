// Shared set-up of the kernel-program tests: random operands, a run on the engine, and the
// comparison against the double-precision reference on the same quantized weights.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "kernels/host/quantize.h"
#include "kernels/host/reference_gemm.h"
#include "kernels/host/test_inputs.h"
#include "kernels/launch/gemm_runner.h"

namespace marlin::kernels::testing {

// Limits of every Apple GPU family the profiles cover: 1024 threads, 32 KiB per threadgroup.
inline sim::DeviceLimits apple_limits() { return {1024, 32768}; }

struct GemmCheck {
  double error = 0;            // relative Frobenius error against the reference
  std::int64_t unwritten = 0;  // output elements still holding the poison pattern
  std::string seed;            // how to replay the inputs
  int dispatches = 0;          // launches run_gemm made
};

// Quantizes random weights into `format` (FP16 for the classic kernels), runs `kernel` on
// random activations, and compares with reference_gemm on the dequantized weights.
inline GemmCheck check_gemm(const GemmKernel& kernel, const GemmProblem& problem,
                            const WeightFormat& format, unsigned host_threads = 1) {
  RandomInputs random(fresh_seed());
  GemmCheck check;
  check.seed = seed_message(random.seed());
  const std::vector<Half> a = random.uniform_half(problem.m * problem.k);
  const std::vector<float> w = random.normal_float(problem.k * problem.n, 0.5);
  std::vector<Half> bias;
  if (problem.bias) bias = random.uniform_half(problem.n);
  GemmOperands operands;
  operands.a = a;
  std::vector<float> dense;
  std::vector<Half> b;
  PackedWeights packed;
  if (format.kind == WeightFormatKind::kFp16) {
    b = to_half_vector(w);
    dense = to_float_vector(b);
    operands.b = b;
    operands.bias = bias;
  } else {
    packed = quantize_weights(w, problem.k, problem.n, format);
    dense = dequantize(packed);
    operands.weights = &packed;
  }
  sim::LaunchOptions options;
  options.host_threads = host_threads;
  const GemmRun run = run_gemm(kernel, problem, operands, apple_limits(), options);
  const std::vector<double> reference =
      reference_gemm(a, dense, problem.m, problem.n, problem.k, bias, problem.activation);
  check.unwritten = count_poisoned(run.c);
  check.dispatches = static_cast<int>(run.dispatches.size());
  check.error = relative_frobenius_error(run.c, reference);
  return check;
}

}  // namespace marlin::kernels::testing
