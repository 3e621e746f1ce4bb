// The random operands of one GEMM problem, drawn from a seed: what `marlin-sim run` simulates
// and what the kernel tests check against the reference.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/host/fp16.h"
#include "kernels/host/packed_weights.h"
#include "kernels/host/weight_format.h"
#include "kernels/launch/gemm_runner.h"

namespace marlin::kernels {

// Draws from `seed`: A uniform in [-1, 1) (M x K), W normal with standard deviation 0.5
// (K x N), quantized to `format` (or kept in FP16), and for FP16 a uniform bias when the
// problem has one. Only the first `rows` rows of A and the first `columns` columns of W are
// drawn (at most M and N; 0 means all): the rest is zero. Within them, A's values are those of
// a draw of the whole problem; W's are a draw of a K x columns matrix.
struct ProblemOperands {
  std::vector<Half> a, b, bias;
  std::vector<float> dense;  // the weights as the kernel sees them (FP16 only until --check)
  PackedWeights packed;
  GemmOperands operands;

  ProblemOperands(const GemmProblem& p, const WeightFormat& format, std::uint64_t seed,
                  std::int64_t rows = 0, std::int64_t columns = 0);
  ProblemOperands(const ProblemOperands&) = delete;
  ProblemOperands& operator=(const ProblemOperands&) = delete;
};

}  // namespace marlin::kernels
