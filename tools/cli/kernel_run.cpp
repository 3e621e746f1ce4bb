#include "tools/cli/kernel_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "kernels/host/quantize.h"
#include "kernels/host/reference_gemm.h"
#include "kernels/host/test_inputs.h"
#include "model/common/input_error.h"
#include "model/timing/gpu_timing_model.h"

namespace marlin::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

analytic::WeightSpec analytic_weight_spec(const kernels::WeightFormat& format) {
  analytic::WeightSpec spec;
  switch (format.kind) {
    case kernels::WeightFormatKind::kFp16:
      return spec;
    case kernels::WeightFormatKind::kFp4E2M1:
      spec.format = analytic::WeightFormat::kFp4;
      break;
    case kernels::WeightFormatKind::kU4B8:
    case kernels::WeightFormatKind::kU4ZeroPoint:
    case kernels::WeightFormatKind::kInt8:
      spec.format = analytic::WeightFormat::kU4;
      break;
  }
  spec.zero_points = format.has_zero_points();
  if (format.group_size == kernels::kPerColumnGroup) {
    spec.scales = analytic::ScaleMode::kPerColumn;
  } else {
    spec.scales = analytic::ScaleMode::kPerGroup;
    spec.group_size = format.group_size;
  }
  return spec;
}

KernelRunReport run_kernel(const model::DeviceSpec& device, const KernelRunRequest& request) {
  KernelRunReport report;
  // Opened first, so a bad path fails before the (possibly long) run.
  std::ofstream trace_file;
  if (!request.trace_path.empty()) {
    trace_file.open(request.trace_path, std::ios::out | std::ios::trunc);
    if (!trace_file) {
      throw InputError(fmt::format("--trace: cannot open '{}' for writing", request.trace_path));
    }
  }
  report.kernel = kernels::find_gemm_kernel(request.kernel, request.tile);
  kernels::GemmProblem p = request.problem;
  if (report.kernel.family == kernels::GemmFamily::kMarlinFp4Striped && p.num_threadgroups == 0) {
    // One full wave: every core holds as many threadgroups as its occupancy rule admits.
    analytic::OccupancyQuery query;
    query.threads_per_threadgroup = static_cast<int>(report.kernel.threads_x);
    query.threadgroup_memory_bytes = report.kernel.threadgroup_bytes;
    const analytic::OccupancyResult occupancy =
        analytic::compute_occupancy(query, analytic::occupancy_spec_of(device));
    p.num_threadgroups = static_cast<std::uint32_t>(
        std::max<std::int64_t>(1, occupancy.resident_threadgroups * device.gpu.cores));
  }
  report.problem = p;
  if (report.kernel.compiled && report.kernel.family != kernels::GemmFamily::kMatmulNaive &&
      report.kernel.threadgroup_bytes > device.limits.max_threadgroup_memory_bytes) {
    throw InputError(fmt::format("{} refuses {}: {} B of threadgroup memory, limit {} B",
                                 device.name, report.kernel.metal_name,
                                 report.kernel.threadgroup_bytes,
                                 device.limits.max_threadgroup_memory_bytes));
  }
  const kernels::WeightFormat format{report.kernel.weights, request.group_size};
  format.validate();
  report.weights = format.name();

  kernels::RandomInputs random(request.seed);
  const std::vector<kernels::Half> a = random.uniform_half(p.m * p.k);
  const std::vector<float> w = random.normal_float(p.k * p.n, 0.5);
  std::vector<kernels::Half> b;
  std::vector<kernels::Half> bias;
  std::vector<float> dense;
  kernels::PackedWeights packed;
  kernels::GemmOperands operands;
  operands.a = a;
  if (format.kind == kernels::WeightFormatKind::kFp16) {
    b = kernels::to_half_vector(w);
    dense = kernels::to_float_vector(b);
    operands.b = b;
    if (p.bias) bias = random.uniform_half(p.n);
    operands.bias = bias;
  } else {
    packed = kernels::quantize_weights(w, p.k, p.n, format);
    operands.weights = &packed;
  }

  sim::LaunchOptions options;
  options.host_threads = request.host_threads;
  const sim::DeviceLimits limits{
      static_cast<std::uint32_t>(device.limits.max_threads_per_threadgroup),
      static_cast<std::uint64_t>(device.limits.max_threadgroup_memory_bytes)};
  const Clock::time_point functional_start = Clock::now();
  const kernels::GemmRun run = kernels::run_gemm(report.kernel, p, operands, limits, options);
  report.functional_seconds = seconds_since(functional_start);

  report.useful_flops =
      2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  std::vector<timing::LaunchInput> inputs;
  const analytic::OccupancyDeviceSpec occupancy_spec = analytic::occupancy_spec_of(device);
  for (const kernels::GemmDispatch& d : run.dispatches) {
    DispatchReport dispatch{
        d.kernel, d.threadgroups, d.threads_per_threadgroup, d.result.threadgroup_memory_bytes, {}};
    analytic::OccupancyQuery query;
    query.threads_per_threadgroup = static_cast<int>(d.threads_per_threadgroup.volume());
    query.threadgroup_memory_bytes = static_cast<std::int64_t>(d.result.threadgroup_memory_bytes);
    dispatch.occupancy = analytic::compute_occupancy(query, occupancy_spec);
    if (dispatch.occupancy.refused) {
      throw InputError(fmt::format("{} refuses {}: {}", device.name, d.kernel,
                                   dispatch.occupancy.refusal_reason));
    }
    timing::LaunchInput input;
    input.trace = &d.result.trace;
    input.resident_threadgroups_per_core =
        static_cast<int>(dispatch.occupancy.resident_threadgroups);
    const bool main_dispatch =
        d.kernel.rfind("marlin_zero", 0) != 0 && d.kernel.rfind("marlin_reduce", 0) != 0;
    input.useful_flops = main_dispatch ? report.useful_flops : 0;
    inputs.push_back(input);
    report.dispatches.push_back(std::move(dispatch));
  }
  std::optional<timing::ChromeTraceSink> trace;
  if (trace_file.is_open()) {
    try {
      trace.emplace(device.gpu, inputs, request.trace_options);
    } catch (const InputError& error) {
      throw InputError(fmt::format("--trace-max-events, --trace-cores: {}", error.what()));
    }
  }
  const Clock::time_point timing_start = Clock::now();
  report.timing = timing::GpuTimingModel(device).run(inputs, trace ? &*trace : nullptr);
  report.timing_seconds = seconds_since(timing_start);
  if (trace) {
    trace->write(trace_file);
    trace_file.close();
    if (!trace_file) {
      throw InputError(fmt::format("--trace: writing '{}' failed", request.trace_path));
    }
    report.trace = TraceReport{request.trace_path, request.trace_options, trace->summary()};
  }

  report.intensity = analytic::problem_intensity({p.m, p.n, p.k}, analytic_weight_spec(format));
  report.roofline = analytic::roofline(analytic::roofline_machine(device),
                                       static_cast<double>(report.intensity.flops),
                                       static_cast<double>(report.intensity.total_bytes));
  report.unwritten = kernels::count_poisoned(run.c);
  if (request.check) {
    if (format.kind != kernels::WeightFormatKind::kFp16) dense = kernels::dequantize(packed);
    const std::vector<double> reference =
        kernels::reference_gemm(a, dense, p.m, p.n, p.k, bias, p.activation);
    report.check_error = kernels::relative_frobenius_error(run.c, reference);
  }
  return report;
}

}  // namespace marlin::cli
