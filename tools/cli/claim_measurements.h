// What `--simulate` measures on the simulated device for the claims that need the timing
// model or the engine (docs/validation.md): the selection guide's runs, a residency sweep of a
// compute-bound GEMM, the ALU work the dequantization kernels execute per element, the phase
// probes (phase_probes.h), and three 64x64x32 runs of one shape for the claims about the
// kernels' stalls and weight traffic.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/device/device_spec.h"
#include "model/timing/stall_class.h"
#include "tools/cli/phase_probes.h"
#include "tools/cli/selection_guide.h"

namespace marlin::cli {

// Predicted time of the residency sweep's GEMM with at most `resident` threadgroups per core.
struct ResidencyPoint {
  int resident = 0;
  double seconds = 0;
};

// Line loads of one buffer in one run, by the level that served them (the timing model's
// "memory.buffer<n>.*" counters), and the DRAM-served ones that followed the previous
// DRAM-served line of that buffer.
struct BufferLoads {
  std::int64_t l1 = 0;
  std::int64_t l2 = 0;
  std::int64_t slc = 0;
  std::int64_t dram = 0;
  std::int64_t dram_sequential = 0;
  [[nodiscard]] std::int64_t total() const { return l1 + l2 + slc + dram; }
};

struct ClaimMeasurements {
  std::vector<GuideAnswer> guide;
  // The guide's configurations on a wide decode shape: M = 16, N = 11008 (Llama-7B's FFN),
  // K = 4096.
  std::optional<GuideAnswer> wide_decode;
  // marlin_gemm_fused_fp4 64x64x32 at 512x4096x4096 (sampled) with the resident threadgroups
  // per core capped at 1, 2, 4, 8 and the occupancy rule's value, ascending.
  std::vector<ResidencyPoint> residency;
  std::string residency_shape;
  // Lane ALU instructions the engine counts per weight element in dequant_fp4 and dequant_u4
  // (U4B8), over a 128 x 64 matrix with groups of 128.
  std::optional<double> fp4_ops_per_element;
  std::optional<double> u4_ops_per_element;
  // The phase probes' cycles on this device.
  std::optional<PhaseProbeResults> phases;
  // Full (unsampled) runs of the 64x64x32 FP4 kernels at `stream_shape`: the packed-B loads
  // (buffer 1) of the fused kernel (row-major tile order: column tiles fastest) and of the
  // striped kernel with K-parallel 1 (column-major tile order), the distinct lines of packed B,
  // and the stall breakdown of the separate (double-buffered) kernel.
  std::string stream_shape;
  std::optional<BufferLoads> fused_b;
  std::optional<BufferLoads> striped_b;
  std::int64_t b_lines = 0;
  std::optional<timing::StallBreakdown> separate_breakdown;
};

// Runs everything above on `device`, with progress lines on `progress`.
ClaimMeasurements measure_claims(const model::DeviceSpec& device, std::ostream& progress);

// Lane ALU instructions per element of one dequantization kernel ("dequant_fp4" or
// "dequant_u4") over a k x n matrix.
double dequant_ops_per_element(const model::DeviceSpec& device, const std::string& kernel,
                               std::int64_t k, std::int64_t n);

}  // namespace marlin::cli
