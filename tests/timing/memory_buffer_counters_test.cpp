// Per-buffer load counters of the memory hierarchy (memory.buffer<n>.*): the level serving
// each buffer's loads and the sequential DRAM requests, on a tiny hierarchy worked by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/timing/memory_hierarchy.h"

namespace marlin::timing {
namespace {

// 128-byte lines; L1 2 lines, L2 4 lines, SLC 8 lines, fully associative; one core.
MemoryHierarchy tiny_hierarchy() {
  const model::MemorySpec memory{
      .l1 = {.size_bytes = 256, .line_bytes = 128, .associativity = 0, .hit_latency_cycles = 10},
      .l2 = {.size_bytes = 512, .line_bytes = 128, .associativity = 0, .hit_latency_cycles = 50},
      .slc = {.size_bytes = 1024, .line_bytes = 128, .associativity = 0, .hit_latency_cycles = 100},
      .core_to_l2_bytes_per_cycle = 128,
      .dram_bandwidth_bytes_per_s = 128e9,
      .dram_latency_cycles = 300,
  };
  return MemoryHierarchy(memory, model::GpuSpec{.cores = 1, .clock_hz = 1e9});
}

std::uint64_t line_of(std::uint64_t buffer, std::uint64_t line) {
  return (buffer << kBufferAddressShift) + line * 128;
}

std::int64_t value(const std::vector<StatRecord>& records, const std::string& name) {
  for (const StatRecord& r : records) {
    if (r.name == name) return r.value;
  }
  return -1;  // not registered
}

TEST(MemoryBufferCountersTest, CountsLevelsAndSequentialDramLinesPerBuffer) {
  MemoryHierarchy memory = tiny_hierarchy();
  std::int64_t t = 0;
  // Buffer 1: lines 0, 1, 2 cold (DRAM; 1 and 2 follow their predecessor: 2 sequential), then
  // line 2 again (L1 hit), then line 0 (evicted from the 2-line L1, still in L2).
  for (const std::uint64_t line : {0, 1, 2, 2, 0})
    memory.access(0, Cycles(t += 1000), line_of(1, line), false);
  // Buffer 3: line 5 then line 7 (both DRAM, not consecutive), and a store (not counted).
  memory.access(0, Cycles(t += 1000), line_of(3, 5), false);
  memory.access(0, Cycles(t += 1000), line_of(3, 7), false);
  memory.access(0, Cycles(t += 1000), line_of(3, 8), true);
  std::vector<StatRecord> records;
  memory.append_records("memory.", records);
  EXPECT_EQ(value(records, "memory.buffer1.served_dram"), 3);
  EXPECT_EQ(value(records, "memory.buffer1.served_l1"), 1);
  EXPECT_EQ(value(records, "memory.buffer1.served_l2"), 1);
  EXPECT_EQ(value(records, "memory.buffer1.served_slc"), 0);
  EXPECT_EQ(value(records, "memory.buffer1.dram_sequential"), 2);
  EXPECT_EQ(value(records, "memory.buffer3.served_dram"), 2);
  EXPECT_EQ(value(records, "memory.buffer3.dram_sequential"), 0);
  // Buffers never read have no counters.
  EXPECT_EQ(value(records, "memory.buffer0.served_l1"), -1);
  EXPECT_EQ(value(records, "memory.buffer2.served_l1"), -1);
}

}  // namespace
}  // namespace marlin::timing
