// MarlinLinear / quantized_linear: a quantized linear layer y[M,N] = x[M,K] x W[K,N] run on
// the simulated device, choosing the kernel and tile for each M from a SelectionTable.
#pragma once

#include <span>
#include <vector>

#include "kernels/host/fp16.h"
#include "kernels/host/packed_weights.h"
#include "kernels/launch/gemm_runner.h"
#include "kernels/launch/selection_table.h"

namespace marlin::kernels {

class MarlinLinear {
 public:
  // Validates the weights (InputError if malformed or of a format no GEMM kernel takes).
  MarlinLinear(PackedWeights weights, SelectionTable table = SelectionTable::analysis_default());

  std::int64_t in_features() const { return weights_.k; }
  std::int64_t out_features() const { return weights_.n; }

  // The kernel this layer runs for a batch of m rows.
  GemmKernel kernel_for(std::int64_t m) const;

  // y = x W for x of m rows ([m, in_features] row-major half), on a device with `limits`.
  std::vector<Half> forward(std::span<const Half> x, std::int64_t m,
                            const sim::DeviceLimits& limits,
                            const sim::LaunchOptions& options = {}) const;

 private:
  PackedWeights weights_;
  SelectionTable table_;
};

// One-shot form of MarlinLinear::forward with the analysis's default table.
std::vector<Half> quantized_linear(std::span<const Half> x, std::int64_t m,
                                   const PackedWeights& weights, const sim::DeviceLimits& limits);

}  // namespace marlin::kernels
