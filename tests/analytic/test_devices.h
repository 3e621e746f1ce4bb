// Devices built in code for the analytic-model tests, with round numbers that make the hand
// arithmetic in the tests easy. They are not real profiles.
#pragma once

#include "model/analytic/occupancy.h"
#include "model/device/device_spec.h"

namespace marlin::analytic::testing {

// Limits shared by both test devices: 1024 threads and 32768 B per threadgroup (16 B aligned),
// 128 registers per thread, 3072 threads = 96 simdgroups and 32 threadgroups per core.
inline model::LimitsSpec test_limits() {
  model::LimitsSpec limits;
  limits.max_threads_per_threadgroup = 1024;
  limits.max_threadgroup_memory_bytes = 32768;
  limits.threadgroup_memory_alignment_bytes = 16;
  limits.max_registers_per_thread = 128;
  limits.max_threads_per_core = 3072;
  limits.max_simdgroups_per_core = 96;
  limits.max_threadgroups_per_core = 32;
  return limits;
}

// Apple7-style static device: 8 cores at 1 GHz, 65536 B threadgroup memory per core, a
// 262144 B register file and the register table 32 -> 2048, 64 -> 1024, 128 -> 512 threads.
inline model::DeviceSpec static_device() {
  model::DeviceSpec device;
  device.name = "test-static";
  device.gpu.family = model::GpuFamily::kApple7;
  device.gpu.cores = 8;
  device.gpu.clock_hz = 1e9;
  device.gpu.simd_width = 32;
  device.gpu.schedulers_per_core = 4;
  device.gpu.alu_lanes_per_core = 128;
  device.limits = test_limits();
  device.occupancy.rule = model::OccupancyRule::kStatic;
  device.occupancy.threadgroup_memory_per_core_bytes = 65536;
  device.occupancy.register_file_per_core_bytes = 262144;
  device.occupancy.register_table = {{32, 2048}, {64, 1024}, {128, 512}};
  device.pipes.fp16_fma = {1, 4};
  device.pipes.matmul_f16 = {32, 16};
  device.memory.dram_bandwidth_bytes_per_s = 1e11;
  return device;
}

// Apple9-style dynamic-caching device: 10 cores at 1 GHz, a 262144 B pool with 65536 B kept for
// the cache (196608 B available), register residency 1.0, a 64 B granule, 32 assumed registers.
// Peaks: FP16 FMA 2 * 4 * 32 * 10 * 1e9 = 2.56e12 FLOP/s; matmul 1024 * (4 / 32) * 10 * 1e9 =
// 1.28e12 FLOP/s; DRAM 1e11 B/s.
inline model::DeviceSpec dynamic_device() {
  model::DeviceSpec device;
  device.name = "test-dynamic";
  device.gpu.family = model::GpuFamily::kApple9;
  device.gpu.cores = 10;
  device.gpu.clock_hz = 1e9;
  device.gpu.simd_width = 32;
  device.gpu.schedulers_per_core = 4;
  device.gpu.alu_lanes_per_core = 128;
  device.limits = test_limits();
  device.occupancy.rule = model::OccupancyRule::kDynamicCaching;
  device.occupancy.onchip_pool_per_core_bytes = 262144;
  device.occupancy.cache_reserve_bytes = 65536;
  device.occupancy.register_residency = 1.0;
  device.occupancy.threadgroup_memory_granule_bytes = 64;
  device.occupancy.assumed_registers_per_thread = 32;
  device.pipes.fp16_fma = {1, 4};
  device.pipes.matmul_f16 = {32, 16};
  device.memory.dram_bandwidth_bytes_per_s = 1e11;
  return device;
}

inline OccupancyDeviceSpec static_occupancy() { return occupancy_spec_of(static_device()); }
inline OccupancyDeviceSpec dynamic_occupancy() { return occupancy_spec_of(dynamic_device()); }

}  // namespace marlin::analytic::testing
