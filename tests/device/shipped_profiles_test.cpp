// The shipped profiles (profiles/*.json) load, and selected values match arithmetic written
// out here from the published figures. Latencies given in ns are converted with the
// profile's clock and rounded to the nearest cycle, halves away from zero.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "model/device/profile_loader.h"
#include "model/device/profile_schema.h"

namespace marlin::model {
namespace {

const std::filesystem::path kShippedDir = std::filesystem::path(MARLIN_SOURCE_DIR) / "profiles";

class ShippedProfiles : public ::testing::Test {
 protected:
  void SetUp() override { setenv("MARLIN_PROFILES_DIR", kShippedDir.c_str(), 1); }
  void TearDown() override { unsetenv("MARLIN_PROFILES_DIR"); }
};

TEST_F(ShippedProfiles, TheListIsComplete) {
  EXPECT_EQ(list_devices(), (std::vector<std::string>{"m1", "m1max", "m2pro", "m3max", "m4max",
                                                      "m4max-32c", "m4pro", "m4pro-16c"}));
}

TEST_F(ShippedProfiles, EveryProfileLoadsWithFullProvenance) {
  for (const std::string& name : list_devices()) {
    SCOPED_TRACE(name);
    const DeviceSpec spec = load_device(name);
    EXPECT_EQ(spec.name, name);
    EXPECT_EQ(spec.file, (kShippedDir / (name + ".json")).string());
    for (const FieldDef& field : profile_fields()) {
      const bool used =
          field.use == FieldUse::kAlways ||
          (field.use == FieldUse::kStaticRule) == (spec.occupancy.rule == OccupancyRule::kStatic);
      ASSERT_EQ(spec.provenance.count(std::string(field.path)), used ? 1U : 0U) << field.path;
    }
    for (const auto& [path, provenance] : spec.provenance) {
      EXPECT_FALSE(provenance.source.empty()) << path;
      // Every estimate says why it is one.
      if (provenance.kind == SourceKind::kEstimate) {
        EXPECT_FALSE(provenance.note.empty()) << path;
      }
    }
  }
}

TEST_F(ShippedProfiles, M4Max) {
  const DeviceSpec spec = load_device("m4max");
  EXPECT_EQ(spec.gpu.family, GpuFamily::kApple9);
  EXPECT_EQ(spec.occupancy.rule, OccupancyRule::kDynamicCaching);
  EXPECT_EQ(spec.gpu.cores, 40);
  EXPECT_EQ(spec.gpu.clock_hz, 1578.0 * 1e6);  // 1578 MHz
  EXPECT_EQ(spec.memory.dram_bandwidth_bytes_per_s, 546.0 * 1e9);
  EXPECT_EQ(spec.limits.max_threadgroup_memory_bytes, 32 * 1024);
  // Pool: 208 KiB registers + 60 KiB threadgroup memory + 8 KiB L1 = 276 KiB.
  EXPECT_EQ(spec.occupancy.onchip_pool_per_core_bytes, (208 + 60 + 8) * 1024);
  EXPECT_EQ(spec.occupancy.cache_reserve_bytes, 8 * 1024);
  // SLC hit 234 ns * 1.578 GHz = 369.252 cycles -> 369; DRAM 342 ns -> 539.676 -> 540.
  EXPECT_EQ(spec.memory.slc.hit_latency_cycles, 369);
  EXPECT_EQ(spec.memory.dram_latency_cycles, 540);
  EXPECT_EQ(spec.memory.slc.size_bytes, std::int64_t{48} * 1024 * 1024);
  EXPECT_EQ(spec.pipes.fp32_fma.latency_cycles, 6);
  EXPECT_EQ(spec.pipes.simd_reduce.throughput_cycles, 15);  // 14.5 rounded half away from zero
  EXPECT_EQ(spec.pipes.matmul_f16.throughput_cycles, 17);
  EXPECT_DOUBLE_EQ(spec.dispatch.command_buffer_overhead_s, 10e-6);
  // Peak FP16 FMA rate: 40 cores * 128 lanes * 2 FLOP * 1.578e9 Hz = 16.158720e12 FLOP/s.
  const double peak = spec.gpu.cores * spec.gpu.alu_lanes_per_core * 2.0 * spec.gpu.clock_hz /
                      spec.pipes.fp16_fma.throughput_cycles;
  EXPECT_DOUBLE_EQ(peak, 16.15872e12);
  EXPECT_EQ(spec.provenance.at("gpu.clock").kind, SourceKind::kMeasured);
  EXPECT_EQ(spec.provenance.at("gpu.cores").kind, SourceKind::kVendor);
  EXPECT_EQ(spec.provenance.at("occupancy.onchip_pool_per_core").kind, SourceKind::kEstimate);
}

TEST_F(ShippedProfiles, M4MaxBinsAndM4Pro) {
  const DeviceSpec max = load_device("m4max");
  const DeviceSpec max32 = load_device("m4max-32c");
  EXPECT_EQ(max32.gpu.cores, 32);
  EXPECT_EQ(max32.memory.dram_bandwidth_bytes_per_s, 410e9);
  EXPECT_EQ(max32.pipes.matmul_f32.latency_cycles, max.pipes.matmul_f32.latency_cycles);
  EXPECT_EQ(max32.occupancy.onchip_pool_per_core_bytes, max.occupancy.onchip_pool_per_core_bytes);
  EXPECT_EQ(max32.provenance.at("gpu.clock").kind, SourceKind::kEstimate);

  const DeviceSpec pro = load_device("m4pro");
  EXPECT_EQ(pro.gpu.cores, 20);
  EXPECT_EQ(pro.memory.dram_bandwidth_bytes_per_s, 273e9);
  EXPECT_EQ(pro.gpu.clock_hz, 1578e6);
  EXPECT_EQ(pro.provenance.at("gpu.clock").kind, SourceKind::kEstimate);
  const DeviceSpec pro16 = load_device("m4pro-16c");
  EXPECT_EQ(pro16.gpu.cores, 16);
  EXPECT_EQ(pro16.memory.dram_bandwidth_bytes_per_s, 273e9);  // inherited from m4pro
}

TEST_F(ShippedProfiles, M3Max) {
  const DeviceSpec spec = load_device("m3max");
  EXPECT_EQ(spec.gpu.cores, 40);
  EXPECT_EQ(spec.gpu.clock_hz, 1380e6);
  EXPECT_EQ(spec.memory.dram_bandwidth_bytes_per_s, 400e9);
  // 234 ns * 1.380 GHz = 322.92 cycles -> 323.
  EXPECT_EQ(spec.memory.slc.hit_latency_cycles, 323);
}

TEST_F(ShippedProfiles, M1StaticRule) {
  const DeviceSpec spec = load_device("m1");
  EXPECT_EQ(spec.gpu.family, GpuFamily::kApple7);
  EXPECT_EQ(spec.occupancy.rule, OccupancyRule::kStatic);
  EXPECT_EQ(spec.gpu.cores, 8);
  EXPECT_EQ(spec.gpu.clock_hz, 1278e6);
  EXPECT_DOUBLE_EQ(spec.memory.dram_bandwidth_bytes_per_s, 68.25e9);
  EXPECT_EQ(spec.occupancy.threadgroup_memory_per_core_bytes, 60 * 1024);
  EXPECT_EQ(spec.occupancy.register_file_per_core_bytes, 208 * 1024);
  // Mesa's table in half-registers, halved: 104 -> 52 registers at 1024 threads, 256 -> 128
  // registers at 384 threads.
  ASSERT_EQ(spec.occupancy.register_table.size(), 10U);
  EXPECT_EQ(spec.occupancy.register_table.front().max_registers, 104 / 2);
  EXPECT_EQ(spec.occupancy.register_table.front().max_threads, 1024);
  EXPECT_EQ(spec.occupancy.register_table[6].max_registers, 184 / 2);
  EXPECT_EQ(spec.occupancy.register_table[6].max_threads, 576);
  EXPECT_EQ(spec.occupancy.register_table.back().max_registers, 256 / 2);
  EXPECT_EQ(spec.occupancy.register_table.back().max_threads, 384);
  EXPECT_EQ(spec.memory.l2.size_bytes, 768 * 1024);
  EXPECT_EQ(spec.provenance.at("pipes.fp16_fma.latency").kind, SourceKind::kMeasured);
}

TEST_F(ShippedProfiles, M1MaxAndM2Pro) {
  const DeviceSpec m1max = load_device("m1max");
  EXPECT_EQ(m1max.gpu.cores, 32);
  EXPECT_EQ(m1max.gpu.clock_hz, 1296e6);
  EXPECT_EQ(m1max.memory.slc.size_bytes, std::int64_t{48} * 1024 * 1024);
  EXPECT_EQ(m1max.occupancy.register_table.size(), 10U);  // inherited from m1

  const DeviceSpec m2pro = load_device("m2pro");
  EXPECT_EQ(m2pro.gpu.family, GpuFamily::kApple8);
  EXPECT_EQ(m2pro.occupancy.rule, OccupancyRule::kStatic);
  EXPECT_EQ(m2pro.gpu.cores, 19);
  EXPECT_EQ(m2pro.gpu.clock_hz, 1398e6);
  EXPECT_EQ(m2pro.memory.dram_bandwidth_bytes_per_s, 200e9);
  EXPECT_EQ(m2pro.memory.l2.size_bytes, 3 * 1024 * 1024);
  // SLC hit 234 ns * 1.398 GHz = 327.132 cycles -> 327; DRAM 342 ns -> 478.116 -> 478.
  EXPECT_EQ(m2pro.memory.slc.hit_latency_cycles, 327);
  EXPECT_EQ(m2pro.memory.dram_latency_cycles, 478);
  EXPECT_EQ(m2pro.provenance.at("memory.slc.hit_latency").kind, SourceKind::kMeasured);
  EXPECT_EQ(m2pro.provenance.at("memory.dram_latency").kind, SourceKind::kMeasured);
}

}  // namespace
}  // namespace marlin::model
