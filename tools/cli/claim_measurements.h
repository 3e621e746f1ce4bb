// What `--simulate` measures on the simulated device for the claims that need the timing
// model or the engine (docs/validation.md): the selection guide's runs, a residency sweep of a
// compute-bound GEMM, and the ALU work the dequantization kernels execute per element.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/device/device_spec.h"
#include "tools/cli/selection_guide.h"

namespace marlin::cli {

// Predicted time of the residency sweep's GEMM with at most `resident` threadgroups per core.
struct ResidencyPoint {
  int resident = 0;
  double seconds = 0;
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
};

// Runs everything above on `device`, with progress lines on `progress`.
ClaimMeasurements measure_claims(const model::DeviceSpec& device, std::ostream& progress);

// Lane ALU instructions per element of one dequantization kernel ("dequant_fp4" or
// "dequant_u4") over a k x n matrix.
double dequant_ops_per_element(const model::DeviceSpec& device, const std::string& kernel,
                               std::int64_t k, std::int64_t n);

}  // namespace marlin::cli
