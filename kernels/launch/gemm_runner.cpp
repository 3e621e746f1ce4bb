#include "kernels/launch/gemm_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kernels/common/params.h"
#include "kernels/host/test_inputs.h"
#include "model/common/input_error.h"

namespace marlin::kernels {
namespace {

// Buffer indices of the Marlin kernels (see the .metal files).
constexpr std::uint32_t kFusedA = 0, kFusedCodes = 1, kFusedScales = 2, kFusedZeros = 3,
                        kFusedC = 4, kFusedParams = 5;
constexpr std::uint32_t kSepA = 0, kSepCodes = 1, kSepScales = 2, kSepC = 3, kSepParams = 4;
constexpr std::uint32_t kStripedWorkspace = 4, kStripedParams = 5;
constexpr std::uint32_t kClassicA = 0, kClassicB = 1, kClassicBias = 2, kClassicC = 3,
                        kClassicParams = 4;
constexpr std::uint32_t kMaxKParallel = 64;

template <typename T, typename Allocator>
sim::BufferArg buffer_of(std::vector<T, Allocator>& data) {
  return sim::BufferArg{data.data(), data.size() * sizeof(T)};
}

std::uint32_t ceil_div(std::int64_t a, std::int64_t b) {
  return static_cast<std::uint32_t>((a + b - 1) / b);
}

void check_problem(const GemmKernel& kernel, const GemmProblem& problem,
                   const GemmOperands& operands) {
  if (!kernel.compiled) {
    throw InputError(fmt::format(
        "{} {} is refused: it needs {} B of threadgroup memory, above the 32,768 B that Metal "
        "allows a threadgroup",
        kernel.family_name, analytic::tile_name(kernel.tile), kernel.threadgroup_bytes));
  }
  if (problem.m < 1 || problem.n < 1 || problem.k < 1) {
    throw InputError(fmt::format("GEMM sizes must be at least 1, got M={} N={} K={}", problem.m,
                                 problem.n, problem.k));
  }
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 31;
  if (problem.m * problem.k >= kMaxElements || problem.k * problem.n >= kMaxElements ||
      problem.m * problem.n * problem.k_parallel >= kMaxElements) {
    throw InputError(
        "GEMM too large: every matrix (and the K-slice workspace) must have fewer "
        "than 2^31 elements");
  }
  if (problem.k_parallel < 1 || problem.k_parallel > static_cast<int>(kMaxKParallel)) {
    throw InputError(
        fmt::format("K-parallel factor must be 1..{}, got {}", kMaxKParallel, problem.k_parallel));
  }
  if (problem.k_parallel != 1 && kernel.family != GemmFamily::kMarlinFp4Striped) {
    throw InputError(fmt::format("{} has no K-parallel slices; use marlin_gemm_fp4_striped",
                                 kernel.family_name));
  }
  if (operands.a.size() != static_cast<std::size_t>(problem.m * problem.k)) {
    throw InputError("activations: expected M*K halves");
  }
  if (kernel.weights == WeightFormatKind::kFp16) {
    if (operands.b.size() != static_cast<std::size_t>(problem.k * problem.n)) {
      throw InputError("weights: expected K*N halves for an FP16 matmul");
    }
    if (problem.bias && operands.bias.size() != static_cast<std::size_t>(problem.n)) {
      throw InputError("bias: expected N halves");
    }
    return;
  }
  if (operands.weights == nullptr) throw InputError("weights: a packed weight matrix is needed");
  const PackedWeights& w = *operands.weights;
  w.validate();
  if (w.format.kind != kernel.weights) {
    throw InputError(fmt::format("{} takes {} weights, got {}", kernel.family_name,
                                 weight_format_kind_name(kernel.weights),
                                 weight_format_kind_name(w.format.kind)));
  }
  if (w.k != problem.k || w.n != problem.n) {
    throw InputError(fmt::format("weights are {}x{}, the problem needs K x N = {}x{}", w.k, w.n,
                                 problem.k, problem.n));
  }
}

GemmParams gemm_params(const GemmProblem& problem, const PackedWeights* weights,
                       std::uint32_t num_threadgroups) {
  GemmParams params{};
  params.m = static_cast<unsigned>(problem.m);
  params.n = static_cast<unsigned>(problem.n);
  params.k = static_cast<unsigned>(problem.k);
  params.group_size =
      weights != nullptr ? static_cast<unsigned>(weights->format.effective_group(problem.k)) : 0;
  params.k_parallel = static_cast<unsigned>(problem.k_parallel);
  params.num_threadgroups = num_threadgroups;
  params.activation = static_cast<unsigned>(problem.activation);
  return params;
}

std::string classic_metal_name(const GemmKernel& kernel, const GemmProblem& problem) {
  if (!problem.bias && problem.activation == Activation::kIdentity) return kernel.metal_name;
  std::string name = kernel.metal_name + "_bias";
  switch (problem.activation) {
    case Activation::kIdentity:
      break;
    case Activation::kRelu:
      name += "_relu";
      break;
    case Activation::kGeluTanh:
      name += "_gelu";
      break;
    case Activation::kSilu:
      name += "_silu";
      break;
  }
  return name;
}

// Launches one dispatch and records it.
void dispatch(GemmRun& run, const std::string& kernel, sim::Dim3 threadgroups, sim::Dim3 threads,
              std::map<std::uint32_t, sim::BufferArg> buffers, const sim::DeviceLimits& limits,
              const sim::LaunchOptions& options) {
  sim::LaunchSpec spec;
  spec.kernel = kernel;
  spec.threadgroups = threadgroups;
  spec.threads_per_threadgroup = threads;
  spec.buffers = std::move(buffers);
  spec.limits = limits;
  spec.options = options;
  GemmDispatch record{kernel, threadgroups, threads, sim::launch(spec)};
  run.dispatches.push_back(std::move(record));
}

}  // namespace

std::int64_t striped_work_units(const GemmKernel& kernel, const GemmProblem& problem) {
  return std::int64_t{ceil_div(problem.m, kernel.tile.tm)} * ceil_div(problem.n, kernel.tile.tn) *
         problem.k_parallel;
}

int gemm_dispatch_count(const GemmKernel& kernel, const GemmProblem& problem) {
  return kernel.family == GemmFamily::kMarlinFp4Striped && problem.k_parallel > 1 ? 3 : 1;
}

GemmRun run_gemm(const GemmKernel& kernel, const GemmProblem& problem, const GemmOperands& operands,
                 const sim::DeviceLimits& limits, const sim::LaunchOptions& options) {
  check_problem(kernel, problem, operands);
  GemmRun run;
  run.c.resize(static_cast<std::size_t>(problem.m * problem.n));
  if (options.slice.x == 0) poison(run.c);
  std::vector<Half> a(operands.a.begin(), operands.a.end());
  const sim::Dim3 tiles_2d{ceil_div(problem.n, kernel.tile.tn), ceil_div(problem.m, kernel.tile.tm),
                           1};
  const sim::Dim3 threads{kernel.threads_x, kernel.threads_y, 1};

  if (kernel.weights == WeightFormatKind::kFp16) {
    std::vector<Half> b(operands.b.begin(), operands.b.end());
    std::vector<Half> bias = problem.bias
                                 ? std::vector<Half>(operands.bias.begin(), operands.bias.end())
                                 : std::vector<Half>(static_cast<std::size_t>(problem.n), Half{});
    GemmParams params = gemm_params(problem, nullptr, 0);
    dispatch(run, classic_metal_name(kernel, problem), tiles_2d, threads,
             {{kClassicA, buffer_of(a)},
              {kClassicB, buffer_of(b)},
              {kClassicBias, buffer_of(bias)},
              {kClassicC, buffer_of(run.c)},
              {kClassicParams, sim::BufferArg{&params, sizeof(params)}}},
             limits, options);
    return run;
  }

  const PackedWeights& w = *operands.weights;
  std::vector<std::uint32_t> codes = w.codes;
  std::vector<Half> scales = w.scales;
  std::vector<std::uint32_t> zeros =
      w.zero_points.empty() ? std::vector<std::uint32_t>{0} : w.zero_points;

  if (kernel.family == GemmFamily::kMarlinFp4) {
    GemmParams params = gemm_params(problem, &w, 0);
    dispatch(run, kernel.metal_name, tiles_2d, threads,
             {{kSepA, buffer_of(a)},
              {kSepCodes, buffer_of(codes)},
              {kSepScales, buffer_of(scales)},
              {kSepC, buffer_of(run.c)},
              {kSepParams, sim::BufferArg{&params, sizeof(params)}}},
             limits, options);
    return run;
  }
  if (kernel.family != GemmFamily::kMarlinFp4Striped) {
    GemmParams params = gemm_params(problem, &w, 0);
    dispatch(run, kernel.metal_name, tiles_2d, threads,
             {{kFusedA, buffer_of(a)},
              {kFusedCodes, buffer_of(codes)},
              {kFusedScales, buffer_of(scales)},
              {kFusedZeros, buffer_of(zeros)},
              {kFusedC, buffer_of(run.c)},
              {kFusedParams, sim::BufferArg{&params, sizeof(params)}}},
             limits, options);
    return run;
  }

  const std::int64_t units = striped_work_units(kernel, problem);
  const std::uint32_t groups =
      problem.num_threadgroups == 0
          ? static_cast<std::uint32_t>(units)
          : std::min<std::uint32_t>(problem.num_threadgroups, static_cast<std::uint32_t>(units));
  GemmParams params = gemm_params(problem, &w, groups);
  const std::size_t partials = static_cast<std::size_t>(problem.m * problem.n * problem.k_parallel);
  std::vector<float> workspace(problem.k_parallel > 1 ? partials : 1);
  const sim::BufferArg params_arg{&params, sizeof(params)};
  constexpr std::uint32_t kLinearThreads = 256;
  if (problem.k_parallel > 1) {
    poison(workspace);
    dispatch(run, "marlin_zero_reduction",
             {ceil_div(static_cast<std::int64_t>(partials), kLinearThreads), 1, 1},
             {kLinearThreads, 1, 1}, {{0, buffer_of(workspace)}, {1, params_arg}}, limits, options);
  }
  dispatch(run, kernel.metal_name, {groups, 1, 1}, threads,
           {{kFusedA, buffer_of(a)},
            {kFusedCodes, buffer_of(codes)},
            {kFusedScales, buffer_of(scales)},
            {3, buffer_of(run.c)},
            {kStripedWorkspace, buffer_of(workspace)},
            {kStripedParams, params_arg}},
           limits, options);
  if (problem.k_parallel > 1) {
    dispatch(run, "marlin_reduce_partials", {ceil_div(problem.m * problem.n, kLinearThreads), 1, 1},
             {kLinearThreads, 1, 1},
             {{0, buffer_of(workspace)}, {1, buffer_of(run.c)}, {2, params_arg}}, limits, options);
  }
  return run;
}

}  // namespace marlin::kernels
