// Shared set-up of the kernel-program tests: random operands, a run on the engine, and the
// comparison against the double-precision reference on the same quantized weights.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "kernels/host/quantize.h"
#include "kernels/host/reference_gemm.h"
#include "kernels/host/test_inputs.h"
#include "kernels/launch/gemm_runner.h"
#include "kernels/launch/problem_operands.h"

namespace marlin::kernels::testing {

// Limits of every Apple GPU family the profiles cover: 1024 threads, 32 KiB per threadgroup.
inline sim::DeviceLimits apple_limits() { return {1024, 32768}; }

struct GemmCheck {
  double error = 0;            // relative Frobenius error against the reference
  std::int64_t unwritten = 0;  // output elements still holding the poison pattern
  std::string seed;            // how to replay the inputs
  int dispatches = 0;          // launches run_gemm made
};

// Draws random operands (ProblemOperands: weights quantized into `format`, or FP16 for the
// classic kernels), runs `kernel` on them, and compares with reference_gemm on the
// dequantized weights.
inline GemmCheck check_gemm(const GemmKernel& kernel, const GemmProblem& problem,
                            const WeightFormat& format, unsigned host_threads = 1) {
  const std::uint64_t seed = fresh_seed();
  GemmCheck check;
  check.seed = seed_message(seed);
  const ProblemOperands in(problem, format, seed);
  const std::vector<float> dense =
      format.kind == WeightFormatKind::kFp16 ? in.dense : dequantize(in.packed);
  sim::LaunchOptions options;
  options.host_threads = host_threads;
  const GemmRun run = run_gemm(kernel, problem, in.operands, apple_limits(), options);
  const std::vector<double> reference =
      reference_gemm(in.a, dense, problem.m, problem.n, problem.k, in.bias, problem.activation);
  check.unwritten = count_poisoned(run.c);
  check.dispatches = static_cast<int>(run.dispatches.size());
  check.error = relative_frobenius_error(run.c, reference);
  return check;
}

}  // namespace marlin::kernels::testing
