#include "model/device/device_math.h"

namespace marlin::model {

double peak_fp16_flops(const GpuSpec& gpu, const PipeSpec& pipes) {
  const double fma_per_core_cycle = static_cast<double>(gpu.schedulers_per_core) *
                                    gpu.simd_width / pipes.fp16_fma.throughput_cycles;
  return 2.0 * fma_per_core_cycle * gpu.cores * gpu.clock_hz;
}

double peak_matmul_f16_flops(const GpuSpec& gpu, const PipeSpec& pipes) {
  constexpr double kFlopsPerMatmul = 2.0 * 8 * 8 * 8;
  const double matmuls_per_core_cycle =
      static_cast<double>(gpu.schedulers_per_core) / pipes.matmul_f16.throughput_cycles;
  return kFlopsPerMatmul * matmuls_per_core_cycle * gpu.cores * gpu.clock_hz;
}

double machine_balance(const DeviceSpec& device) {
  return peak_fp16_flops(device.gpu, device.pipes) / device.memory.dram_bandwidth_bytes_per_s;
}

double cycles_to_seconds(const GpuSpec& gpu, double cycles) { return cycles / gpu.clock_hz; }

double seconds_to_cycles(const GpuSpec& gpu, double seconds) { return seconds * gpu.clock_hz; }

}  // namespace marlin::model
