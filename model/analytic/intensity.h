// Arithmetic intensity of a quantized GEMM and its roofline bound.
//
// Two views: per main-loop iteration of one threadgroup tile (the bytes the tile loads for one
// tk step, the analysis document's form), and the whole M x N x K problem against DRAM with
// every input read once and C written once. Contract: plain structs; InputError on bad sizes,
// tile dimensions that are not multiples of 8, or inconsistent weight settings.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/analytic/tile.h"
#include "model/device/device_spec.h"

namespace marlin::analytic {

enum class WeightFormat {
  kFp16,  // 16-bit half weights, no quantization
  kFp4,   // E2M1, 4 bits per weight
  kU4,    // unsigned 4-bit integers
};

int weight_bits(WeightFormat format);
std::string_view weight_format_name(WeightFormat format);  // "fp16", "fp4", "u4"

// The format named "fp16", "fp4" or "u4"; throws InputError naming the accepted names otherwise.
WeightFormat parse_weight_format(std::string_view name);

enum class ScaleMode {
  kNone,       // no scales
  kPerGroup,   // one fp16 scale per group of group_size rows of K, per column
  kPerColumn,  // one fp16 scale per column for the whole K
};

// How B is stored. Zero points (u4 only) are 4-bit, packed two per byte, grouped as the scales.
struct WeightSpec {
  WeightFormat format = WeightFormat::kFp16;
  ScaleMode scales = ScaleMode::kNone;
  int group_size = 0;  // rows of K per scale; used with kPerGroup
  bool zero_points = false;
};

// Throws InputError: scales or zero points on fp16 weights, zero points on fp4, zero points
// without scales, or a group size below 1 with per-group scales.
void validate_weights(const WeightSpec& weights);

// One main-loop iteration of one threadgroup: tm x tn outputs advance by tk.
struct IterationIntensity {
  std::int64_t flops = 0;       // 2 * tm * tn * tk
  double a_bytes = 0;           // tm * tk * 2 (fp16 activations)
  double b_bytes = 0;           // tk * tn * bits / 8
  double scale_bytes = 0;       // per group: tk / G * tn * 2 (fractional); per column: 0
  double zero_point_bytes = 0;  // per group: tk / G * tn / 2; per column: 0
  double total_bytes = 0;
  double intensity = 0;                 // flops / total_bytes, FLOP per byte
  double intensity_without_scales = 0;  // flops / (a_bytes + b_bytes)
};

IterationIntensity iteration_intensity(const Tile& tile, const WeightSpec& weights);

struct ProblemShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
};

// The whole problem against DRAM: each input read once, C (fp16) written once.
struct ProblemIntensity {
  std::int64_t flops = 0;             // 2 * M * N * K
  std::int64_t a_bytes = 0;           // 2 * M * K
  std::int64_t b_bytes = 0;           // ceil(K * N * bits / 8)
  std::int64_t scale_bytes = 0;       // per group: ceil(K / G) * N * 2; per column: N * 2
  std::int64_t zero_point_bytes = 0;  // ceil(scale count / 2)
  std::int64_t c_bytes = 0;           // 2 * M * N
  std::int64_t total_bytes = 0;
  double intensity = 0;  // flops / total_bytes
};

// Throws InputError unless M, N and K are at least 1.
ProblemIntensity problem_intensity(const ProblemShape& shape, const WeightSpec& weights);

// The device figures a roofline needs (FLOP/s and bytes/s of the whole GPU).
struct RooflineMachine {
  double peak_flops = 0;         // FP16 FMA peak (device_math.h peak_fp16_flops)
  double peak_matmul_flops = 0;  // simdgroup-matrix peak (peak_matmul_f16_flops)
  double dram_bytes_per_s = 0;
};

RooflineMachine roofline_machine(const model::DeviceSpec& device);

enum class Bound { kCompute, kMemory };
std::string_view bound_name(Bound bound);  // "compute", "memory"

// Roofline of `flops` over `bytes` against both peaks. Compute-bound when the intensity is at
// least the machine balance.
struct Roofline {
  double intensity = 0;         // FLOP/byte
  double machine_balance = 0;   // peak_flops / dram_bytes_per_s, FLOP/byte
  double attainable_flops = 0;  // min(peak_flops, intensity * bandwidth), FLOP/s
  Bound bound = Bound::kMemory;
  double matmul_balance = 0;           // peak_matmul_flops / dram_bytes_per_s
  double attainable_matmul_flops = 0;  // min(peak_matmul_flops, intensity * bandwidth)
  Bound matmul_bound = Bound::kMemory;
  double compute_time_s = 0;      // flops / peak_flops
  double memory_time_s = 0;       // bytes / dram_bytes_per_s
  double lower_bound_time_s = 0;  // max of the two
};

// Throws InputError when a machine figure is not positive or flops/bytes are negative, or
// bytes are 0.
Roofline roofline(const RooflineMachine& machine, double flops, double bytes);

}  // namespace marlin::analytic
