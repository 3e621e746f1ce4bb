// Running one GEMM kernel of the catalog on the execution engine: buffers, parameters, grid,
// and, for the striped kernel with K-parallel slices, the zero, compute and reduce dispatches.
//
// Contract: run_gemm() checks the problem against the kernel (weight format, shapes, a tile
// that Metal would refuse) and throws InputError with one line naming what is wrong; kernel
// bugs found by the engine's sanitizers come back as sim::KernelFault (when the launch
// options ask for it). The output buffer is poisoned before the launch, so an element the
// kernel never writes shows up as NaN; a sliced launch (LaunchOptions::slice), which leaves
// most of it unwritten by design, gets a zero buffer whose pages cost nothing until written.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/host/fp16.h"
#include "kernels/host/packed_weights.h"
#include "kernels/host/reference_gemm.h"
#include "kernels/launch/kernel_catalog.h"
#include "model/common/zero_page_allocator.h"
#include "sim/runtime/launch.h"

namespace marlin::kernels {

struct GemmProblem {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  int k_parallel = 1;                  // striped kernel: K slices per output tile (1..64)
  std::uint32_t num_threadgroups = 0;  // striped kernel: 1D grid size; 0 = one per work unit
  Activation activation = Activation::kIdentity;  // classic matmuls only
  bool bias = false;                              // classic matmuls only
};

struct GemmOperands {
  std::span<const Half> a;                 // [m, k] row-major
  const PackedWeights* weights = nullptr;  // Marlin kernels
  std::span<const Half> b;                 // classic matmuls: [k, n] row-major
  std::span<const Half> bias;              // classic matmuls with bias: [n]
};

// One dispatch of a run, in order.
struct GemmDispatch {
  std::string kernel;  // Metal name
  sim::Dim3 threadgroups;
  sim::Dim3 threads_per_threadgroup;
  sim::LaunchResult result;
};

struct GemmRun {
  std::vector<Half, ZeroPageAllocator<Half>> c;  // [m, n] row-major
  std::vector<GemmDispatch> dispatches;
};

// Work units of the striped kernel: ceil(M/TM) * ceil(N/TN) * k_parallel.
std::int64_t striped_work_units(const GemmKernel& kernel, const GemmProblem& problem);

// Dispatches run_gemm() makes for the problem: 3 for the striped kernel with K slices (zero
// the workspace, the GEMM, reduce the slices), 1 otherwise.
int gemm_dispatch_count(const GemmKernel& kernel, const GemmProblem& problem);

GemmRun run_gemm(const GemmKernel& kernel, const GemmProblem& problem, const GemmOperands& operands,
                 const sim::DeviceLimits& limits, const sim::LaunchOptions& options);

}  // namespace marlin::kernels
