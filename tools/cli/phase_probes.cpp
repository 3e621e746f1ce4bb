#include "tools/cli/phase_probes.h"

#include <vector>

#include "kernels/calibration/calibration_launch.h"
#include "kernels/calibration/calibration_params.h"
#include "kernels/common/params.h"
#include "kernels/host/fp16.h"

namespace marlin::cli {
namespace {

// The probes' operands: a 64 x 32 A tile of FP16 ones, 4 x 64 packed E2M1 words (mixed
// codes), one row of 64 unit scales, GemmParams of a 64x64x32 problem with one scale group.
constexpr std::uint32_t kProbeM = 64;
constexpr std::uint32_t kProbeN = 64;
constexpr std::uint32_t kProbeK = 32;

struct ProbeOperands {
  std::vector<kernels::Half> a;
  std::vector<std::uint32_t> codes;
  std::vector<kernels::Half> scales;
  std::vector<float> out;
  GemmParams gemm{kProbeM, kProbeN, kProbeK, kProbeK, 1, 1, 0, 0};
  // Repetitions set per launch; seed 1 and a sentinel it never equals (no result is stored).
  CalibParams calib{0, 0, 1.0F, -12345.0F};

  ProbeOperands()
      : a(std::size_t{kProbeM} * kProbeK, kernels::Half(1.0F)),
        codes(std::size_t{kProbeK / 8} * kProbeN),
        scales(kProbeN, kernels::Half(1.0F)),
        out(std::size_t{kProbeThreads} * 64) {
    for (std::size_t i = 0; i < codes.size(); ++i) {
      codes[i] = 0x7351F2A4U ^ static_cast<std::uint32_t>(i * 0x9E3779B9U);
    }
  }
};

// Core cycles of one launch of `kernel` (one threadgroup of `threads`) with `reps`.
std::int64_t probe_cycles(const model::DeviceSpec& device, const std::string& kernel,
                          std::uint32_t threads, std::uint32_t reps) {
  ProbeOperands ops;
  ops.calib.reps = reps;
  calibration::CalibLaunch launch;
  launch.kernel = kernel;
  launch.threadgroups = {1, 1, 1};
  launch.threads_per_threadgroup = {threads, 1, 1};
  launch.buffers = {{0, {ops.a.data(), ops.a.size() * sizeof(kernels::Half)}},
                    {1, {ops.codes.data(), ops.codes.size() * sizeof(std::uint32_t)}},
                    {2, {ops.scales.data(), ops.scales.size() * sizeof(kernels::Half)}},
                    {3, {ops.out.data(), ops.out.size() * sizeof(float)}},
                    {4, {&ops.gemm, sizeof(ops.gemm)}},
                    {5, {&ops.calib, sizeof(ops.calib)}}};
  return calibration::launch_cycles(device, launch);
}

}  // namespace

ProbeTiming time_probe(const model::DeviceSpec& device, const std::string& kernel,
                       std::uint32_t threads, double phases_per_rep) {
  return ProbeTiming{kernel, threads, probe_cycles(device, kernel, threads, kProbeRepsLow),
                     probe_cycles(device, kernel, threads, kProbeRepsHigh), phases_per_rep};
}

PhaseProbeResults run_phase_probes(const model::DeviceSpec& device) {
  PhaseProbeResults r;
  r.threadgroup_barrier =
      time_probe(device, "probe_threadgroup_barrier", kProbeThreads, kProbeBarriersPerRep);
  r.simdgroup_barrier =
      time_probe(device, "probe_simdgroup_barrier", kProbeThreads, kProbeBarriersPerRep);
  r.a_tile_load = time_probe(device, "probe_a_tile_load");
  r.separate_load = time_probe(device, "probe_separate_load");
  r.separate_compute = time_probe(device, "probe_separate_compute");
  r.fused_dequant = time_probe(device, "probe_fused_dequant");
  r.fused_inner = time_probe(device, "probe_fused_inner");
  r.dequant_word = time_probe(device, "probe_dequant_word", 32);
  return r;
}

}  // namespace marlin::cli
