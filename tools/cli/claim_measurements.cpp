#include "tools/cli/claim_measurements.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "kernels/common/params.h"
#include "kernels/host/quantize.h"
#include "kernels/host/test_inputs.h"
#include "model/analytic/occupancy.h"
#include "tools/cli/args.h"
#include "tools/cli/kernel_run.h"
#include "tools/cli/validation_output.h"

namespace marlin::cli {
namespace {

constexpr std::int64_t kResidencyM = 512;
constexpr std::int64_t kResidencyNK = 4096;

// The stream runs' shape: 4 row tiles share every weight column tile, 32 column tiles, 8
// K-blocks; 128 threadgroups over the device's cores. Small enough to run in full (unsampled,
// so every load reaches the counters) in a few seconds per kernel.
constexpr std::int64_t kStreamM = 256;
constexpr std::int64_t kStreamN = 2048;
constexpr std::int64_t kStreamK = 256;

std::int64_t stat_value(const timing::TimingResult& t, const std::string& name) {
  for (const timing::StatRecord& r : t.stats) {
    if (r.name == name) return r.value;
  }
  return 0;
}

// A full run of `kernel` 64x64x32 at the stream shape.
timing::TimingResult stream_run(const model::DeviceSpec& device, const std::string& kernel) {
  KernelRunRequest request;
  request.kernel = kernel;
  request.tile = analytic::Tile{64, 64, 32};
  request.problem = {.m = kStreamM, .n = kStreamN, .k = kStreamK};
  request.host_threads = host_cores();
  return run_kernel(device, request).timing;
}

BufferLoads weight_loads(const timing::TimingResult& t) {
  const std::string p = "memory.buffer1.";
  return BufferLoads{stat_value(t, p + "served_l1"), stat_value(t, p + "served_l2"),
                     stat_value(t, p + "served_slc"), stat_value(t, p + "served_dram"),
                     stat_value(t, p + "dram_sequential")};
}

std::vector<ResidencyPoint> residency_sweep(const model::DeviceSpec& device) {
  KernelRunRequest request;
  request.kernel = "marlin_gemm_fused_fp4";
  request.tile = analytic::Tile{64, 64, 32};
  request.problem = {.m = kResidencyM, .n = kResidencyNK, .k = kResidencyNK};
  request.sample = true;
  const kernels::GemmKernel kernel = kernels::find_gemm_kernel(request.kernel, request.tile);
  const auto most = static_cast<int>(
      analytic::launch_occupancy(device, static_cast<int>(kernel.threads_x * kernel.threads_y),
                                 kernel.threadgroup_bytes)
          .resident_threadgroups);
  std::vector<ResidencyPoint> points;
  for (const int resident : {1, 2, 4, 8, most}) {
    if (resident > most || (!points.empty() && points.back().resident >= resident)) continue;
    request.max_resident_threadgroups = resident;
    points.push_back({resident, run_kernel(device, request).timing.seconds});
  }
  return points;
}

}  // namespace

double dequant_ops_per_element(const model::DeviceSpec& device, const std::string& kernel,
                               std::int64_t k, std::int64_t n) {
  const kernels::WeightFormat format{kernel == "dequant_fp4" ? kernels::WeightFormatKind::kFp4E2M1
                                                             : kernels::WeightFormatKind::kU4B8,
                                     128};
  kernels::RandomInputs random(1);
  const kernels::PackedWeights packed =
      kernels::quantize_weights(random.normal_float(k * n), k, n, format);
  std::vector<std::uint32_t> codes = packed.codes;
  std::vector<kernels::Half> scales = packed.scales;
  std::vector<std::uint32_t> zeros{0};
  std::vector<kernels::Half> out(static_cast<std::size_t>(k * n));
  DequantParams params{static_cast<unsigned>(k), static_cast<unsigned>(n), 128u, 0u};
  sim::LaunchSpec spec;
  spec.kernel = kernel;
  const auto words = static_cast<std::uint32_t>(format.packed_rows(k));
  spec.threads_per_threadgroup = {16, 4, 1};
  spec.threadgroups = {static_cast<std::uint32_t>((n + 15) / 16), (words + 3) / 4, 1};
  spec.buffers = {{0, {codes.data(), codes.size() * 4}},
                  {1, {scales.data(), scales.size() * 2}},
                  {2, {zeros.data(), zeros.size() * 4}},
                  {3, {out.data(), out.size() * 2}},
                  {4, {&params, sizeof(params)}}};
  if (kernel == "dequant_fp4") spec.buffers.erase(2);
  spec.limits = {static_cast<std::uint32_t>(device.limits.max_threads_per_threadgroup),
                 static_cast<std::uint64_t>(device.limits.max_threadgroup_memory_bytes)};
  spec.options.trace = false;
  const sim::LaunchResult result = sim::launch(spec);
  const std::uint64_t ops = std::accumulate(result.stats.alu_lane_ops.begin(),
                                            result.stats.alu_lane_ops.end(), std::uint64_t{0});
  return static_cast<double>(ops) / static_cast<double>(k * n);
}

ClaimMeasurements measure_claims(const model::DeviceSpec& device, std::ostream& progress) {
  ClaimMeasurements m;
  m.guide = simulate_guide_with_progress(device, progress);
  progress << "simulating the wide decode shape\n";
  const unsigned threads = host_cores();
  m.wide_decode =
      simulate_guide(device, {{"Wide decode", "1-16", 16, 11008, 4096, ""}}, threads).front();
  progress << "simulating the residency sweep\n";
  m.residency = residency_sweep(device);
  m.residency_shape = fmt::format("marlin_gemm_fused_fp4 64x64x32 at {}x{}x{}", kResidencyM,
                                  kResidencyNK, kResidencyNK);
  m.fp4_ops_per_element = dequant_ops_per_element(device, "dequant_fp4", 128, 64);
  m.u4_ops_per_element = dequant_ops_per_element(device, "dequant_u4", 128, 64);
  progress << "timing the phase probes\n";
  m.phases = run_phase_probes(device);
  progress << "simulating the 64x64x32 fused, striped and separate kernels\n";
  m.stream_shape = fmt::format("{}x{}x{}", kStreamM, kStreamN, kStreamK);
  m.fused_b = weight_loads(stream_run(device, "marlin_gemm_fused_fp4"));
  m.striped_b = weight_loads(stream_run(device, "marlin_gemm_fp4_striped"));
  // Packed B: K / 8 rows of N 4-byte words.
  m.b_lines = (kStreamK / 8) * kStreamN * 4 / 128;
  m.separate_breakdown = stream_run(device, "marlin_gemm_fp4").breakdown;
  return m;
}

}  // namespace marlin::cli
