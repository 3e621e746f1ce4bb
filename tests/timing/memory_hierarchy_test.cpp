#include "model/timing/memory_hierarchy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/common/input_error.h"
#include "model/common/invariant.h"

namespace marlin::timing {
namespace {

// Tiny hierarchy: 128-byte lines; L1 2 lines (10 cycles), L2 4 lines (50), SLC 8 lines
// (100), all fully associative; core link 128 B/cycle (1 cycle a line); DRAM 128 GB/s at
// 1 GHz = 128 B/cycle (1 cycle a line) with 300 cycles latency.
struct TinySpec {
  model::MemorySpec memory{
      .l1 = {.size_bytes = 256, .line_bytes = 128, .associativity = 0, .hit_latency_cycles = 10},
      .l2 = {.size_bytes = 512, .line_bytes = 128, .associativity = 0, .hit_latency_cycles = 50},
      .slc = {.size_bytes = 1024, .line_bytes = 128, .associativity = 0, .hit_latency_cycles = 100},
      .core_to_l2_bytes_per_cycle = 128,
      .dram_bandwidth_bytes_per_s = 128e9,
      .dram_latency_cycles = 300,
  };
  model::GpuSpec gpu{.cores = 2, .clock_hz = 1e9};
};

constexpr std::uint64_t kA = 0;
constexpr std::uint64_t kB = 128;
constexpr std::uint64_t kC = 256;
constexpr std::uint64_t kD = 384;
constexpr std::uint64_t kE = 512;

// The value of the record named `name`, or -1 when there is none.
std::int64_t record_value(const std::vector<StatRecord>& records, const std::string& name) {
  for (const StatRecord& r : records) {
    if (r.name == name) return r.value;
  }
  return -1;
}

void expect_access(MemoryHierarchy& memory, int core, std::int64_t cycle, std::uint64_t address,
                   bool is_write, std::int64_t ready, MemoryLevel level) {
  const MemoryAccessResult result = memory.access(core, Cycles(cycle), address, is_write);
  EXPECT_EQ(result.ready, Cycles(ready))
      << "core " << core << " cycle " << cycle << " address " << address;
  EXPECT_EQ(result.served_by, level) << "core " << core << " cycle " << cycle << " address "
                                     << address << " served by " << to_string(result.served_by);
}

TEST(MemoryHierarchyTest, LoadsWalkTheLevels) {
  const TinySpec spec;
  MemoryHierarchy memory(spec.memory, spec.gpu);
  // Cold miss: DRAM transfer [0, 1) then 300 cycles -> 301. Link done at 1.
  expect_access(memory, 0, 0, kA, false, 301, MemoryLevel::kDram);
  // L1 hit while the fill is in flight: 1 + 10 = 11, but the line arrives at 301.
  expect_access(memory, 0, 1, kA, false, 301, MemoryLevel::kL1);
  // L1 hit after the fill: 400 + 10.
  expect_access(memory, 0, 400, kA, false, 410, MemoryLevel::kL1);
  // Core 1 misses its own L1 and hits the shared L2: 400 + 50.
  expect_access(memory, 1, 400, kA, false, 450, MemoryLevel::kL2);
  // Two cold misses from core 0 in the same cycle: the link and DRAM serialize them.
  // B: link [500, 501), DRAM [500, 501) -> 801. C: link [501, 502), DRAM [501, 502) -> 802.
  expect_access(memory, 0, 500, kB, false, 801, MemoryLevel::kDram);
  expect_access(memory, 0, 500, kC, false, 802, MemoryLevel::kDram);
  // Core 0's L1 (2 lines) evicted A (last use 400) for C; A is still in L2.
  expect_access(memory, 0, 900, kA, false, 950, MemoryLevel::kL2);
  // L2 holds A, B, C; D fills its 4th frame. E evicts L2's least recently used line: B (order
  // of last use: B, C, A, D).
  expect_access(memory, 0, 1000, kD, false, 1301, MemoryLevel::kDram);
  expect_access(memory, 0, 1000, kE, false, 1302, MemoryLevel::kDram);
  // B: core 1's L1 (holds A) misses, L2 misses, the SLC (8 lines) still has it: 1100 + 100.
  expect_access(memory, 1, 1100, kB, false, 1200, MemoryLevel::kSlc);

  const StatRegistry& stats = memory.stats();
  EXPECT_EQ(stats.value("loads"), 10);
  EXPECT_EQ(stats.value("served_l1"), 2);
  EXPECT_EQ(stats.value("served_l2"), 2);
  EXPECT_EQ(stats.value("served_slc"), 1);
  EXPECT_EQ(stats.value("served_dram"), 5);
  EXPECT_EQ(stats.value("inflight_merges"), 1);
  EXPECT_EQ(memory.dram().stats().value("requests"), 5);
  EXPECT_EQ(memory.l2().stats().value("read_misses"), 6);  // A, B, C, D, E, then B again
}

TEST(MemoryHierarchyTest, RecordsTheLinesOfL2AccessesOnly) {
  const TinySpec spec;
  MemoryHierarchy memory(spec.memory, spec.gpu);
  std::vector<std::uint64_t> lines;
  memory.access(0, Cycles(0), kA, false);  // before recording
  memory.record_l2_lines(&lines);
  memory.access(0, Cycles(10), kA + 5, false);  // an L1 hit: not an L2 access
  memory.access(1, Cycles(10), kA + 5, false);  // core 1's L1 misses: line 0
  memory.access(0, Cycles(20), kC, true);       // stores reach L2: line 2
  memory.access(0, Cycles(30), kB + 127, false);  // line 1
  memory.record_l2_lines(nullptr);
  memory.access(0, Cycles(40), kD, false);  // after recording
  EXPECT_EQ(lines, (std::vector<std::uint64_t>{0, 2, 1}));
}

TEST(MemoryHierarchyTest, AnL2HitWaitsForAFillInFlightFromAnotherCore) {
  const TinySpec spec;
  MemoryHierarchy memory(spec.memory, spec.gpu);
  expect_access(memory, 0, 0, kA, false, 301, MemoryLevel::kDram);
  // Core 1 at cycle 10: L2 hit would be ready at 60, but the line reaches L2 at 301.
  expect_access(memory, 1, 10, kA, false, 301, MemoryLevel::kL2);
  EXPECT_EQ(memory.stats().value("inflight_merges"), 1);
}

TEST(MemoryHierarchyTest, StoresAreWrittenThroughToL2) {
  const TinySpec spec;
  MemoryHierarchy memory(spec.memory, spec.gpu);
  // Store miss: L1 does not allocate; L2 allocates without fetching: 0 + 50.
  expect_access(memory, 0, 0, kA, true, 50, MemoryLevel::kL2);
  EXPECT_FALSE(memory.l1(0).contains(kA));
  EXPECT_TRUE(memory.l2().contains(kA));
  // Load: L1 miss, L2 hit: 10 + 50.
  expect_access(memory, 0, 10, kA, false, 60, MemoryLevel::kL2);
  // Store hit in L1 is written through; served by L2: 100 + 50.
  expect_access(memory, 0, 100, kA, true, 150, MemoryLevel::kL2);
  EXPECT_EQ(memory.l1(0).stats().value("write_hits"), 1);
  EXPECT_EQ(memory.l1(0).stats().value("write_misses"), 1);
  EXPECT_EQ(memory.stats().value("stores"), 2);
  EXPECT_EQ(memory.dram().stats().value("requests"), 0);
}

TEST(MemoryHierarchyTest, DirtyLinesAreWrittenBackAndUseDramBandwidth) {
  TinySpec spec;
  spec.memory.l2.size_bytes = 128;   // one line
  spec.memory.slc.size_bytes = 128;  // one line
  spec.gpu.cores = 1;
  MemoryHierarchy memory(spec.memory, spec.gpu);
  // Store A: L2 = {A dirty}; 0 + 50.
  expect_access(memory, 0, 0, kA, true, 50, MemoryLevel::kL2);
  // Load B at 10: L2 evicts dirty A; SLC misses B; DRAM [10, 11) -> 311. Then A is written
  // into the SLC, evicting clean B: SLC = {A dirty}.
  expect_access(memory, 0, 10, kB, false, 311, MemoryLevel::kDram);
  // Load C at 100: L2 evicts clean B; SLC misses C and evicts dirty A. DRAM read of C
  // [100, 101) -> 401, then A's writeback [101, 102).
  expect_access(memory, 0, 100, kC, false, 401, MemoryLevel::kDram);
  // Load D at 101: DRAM is busy until 102 because of the writeback: [102, 103) -> 403.
  expect_access(memory, 0, 101, kD, false, 403, MemoryLevel::kDram);
  EXPECT_EQ(memory.stats().value("dram_writebacks"), 1);
  EXPECT_EQ(memory.dram().stats().value("requests"), 4);
  EXPECT_EQ(memory.dram().stats().value("bytes"), 4 * 128);
  EXPECT_EQ(memory.l2().stats().value("writebacks"), 1);
  EXPECT_EQ(memory.slc().stats().value("writebacks"), 1);
}

TEST(MemoryHierarchyTest, CoreLinkBandwidthLimitsL2Hits) {
  TinySpec spec;
  spec.memory.core_to_l2_bytes_per_cycle = 32;  // 4 cycles a line
  spec.memory.l2.hit_latency_cycles = 5;
  MemoryHierarchy memory(spec.memory, spec.gpu);
  // Warm L2 with A, B, C from core 1 (at cycle 0; values checked elsewhere).
  memory.access(1, Cycles(0), kA, false);
  memory.access(1, Cycles(0), kB, false);
  memory.access(1, Cycles(0), kC, false);
  // Core 0 at 1000: link [1000, 1004), [1004, 1008), [1008, 1012); L2 latency 5.
  expect_access(memory, 0, 1000, kA, false, 1005, MemoryLevel::kL2);  // max(1005, 1004)
  expect_access(memory, 0, 1000, kB, false, 1008, MemoryLevel::kL2);  // max(1005, 1008)
  expect_access(memory, 0, 1000, kC, false, 1012, MemoryLevel::kL2);
  EXPECT_EQ(memory.link(0).stats().value("requests"), 3);
  EXPECT_EQ(memory.link(1).stats().value("requests"), 3);
}

TEST(MemoryHierarchyTest, SharedL2PortLimitsBothCores) {
  TinySpec spec;
  spec.memory.l2_bytes_per_cycle = 64;  // 2 cycles a line, shared by the two cores
  spec.memory.l2.hit_latency_cycles = 5;
  MemoryHierarchy memory(spec.memory, spec.gpu);
  // Warm L2 with A, B, C, D from core 1 (port [0, 8)); core 1's 2-line L1 keeps C and D.
  for (const std::uint64_t line : {kA, kB, kC, kD}) memory.access(1, Cycles(0), line, false);
  // At 1000 both cores miss their L1 and hit L2; each line holds the shared port 2 cycles in
  // call order: [1000, 1002), [1002, 1004), ... The k-th (1-based) is ready at
  // max(1000 + 5, 1000 + 2k); each core's own link (1 cycle a line) never limits.
  expect_access(memory, 0, 1000, kA, false, 1005, MemoryLevel::kL2);  // max(1005, 1002)
  expect_access(memory, 1, 1000, kA, false, 1005, MemoryLevel::kL2);  // max(1005, 1004)
  expect_access(memory, 0, 1000, kB, false, 1006, MemoryLevel::kL2);
  expect_access(memory, 1, 1000, kB, false, 1008, MemoryLevel::kL2);
  expect_access(memory, 0, 1000, kC, false, 1010, MemoryLevel::kL2);
  expect_access(memory, 0, 1000, kD, false, 1012, MemoryLevel::kL2);
  // Stores pass the port too: [2000, 2002) -> max(2005, 2002); [2002, 2004); [2004, 2006).
  expect_access(memory, 0, 2000, kA, true, 2005, MemoryLevel::kL2);
  expect_access(memory, 0, 2000, kB, true, 2005, MemoryLevel::kL2);
  expect_access(memory, 0, 2000, kC, true, 2006, MemoryLevel::kL2);
  // 13 lines of 128 bytes = 1,664 bytes; at 64 B/cycle that is 26 busy cycles of 2,006.
  EXPECT_DOUBLE_EQ(memory.l2_port_utilization(Cycles(2006)), 26.0 / 2006.0);
  std::vector<StatRecord> records;
  memory.append_records("memory.", records);
  EXPECT_EQ(record_value(records, "memory.l2_port.bytes"), 13 * 128);
}

TEST(MemoryHierarchyTest, L1PortLimitsHitsOfOneCore) {
  TinySpec spec;
  spec.memory.l1_bytes_per_cycle = 32;  // 4 cycles a line, per core
  MemoryHierarchy memory(spec.memory, spec.gpu);
  // Cold miss: port [0, 4); DRAM [0, 1) + 300 -> 301.
  expect_access(memory, 0, 0, kA, false, 301, MemoryLevel::kDram);
  // Four hits at 400: port [400, 404), [404, 408), [408, 412), [412, 416); latency 10.
  expect_access(memory, 0, 400, kA, false, 410, MemoryLevel::kL1);  // max(410, 404)
  expect_access(memory, 0, 400, kA, false, 410, MemoryLevel::kL1);  // max(410, 408)
  expect_access(memory, 0, 400, kA, false, 412, MemoryLevel::kL1);
  expect_access(memory, 0, 400, kA, false, 416, MemoryLevel::kL1);
  // Core 1 has its own port: a miss served by L2 at 400 is not delayed by core 0's hits.
  expect_access(memory, 1, 400, kA, false, 450, MemoryLevel::kL2);
  // A store does not use the L1 port: the load after it at 500 finds the port idle.
  memory.access(0, Cycles(500), kA, true);
  expect_access(memory, 0, 500, kA, false, 510, MemoryLevel::kL1);
  // Core 0's port moved 6 lines (768 bytes, 24 cycles) in 600 cycles.
  EXPECT_DOUBLE_EQ(memory.l1_port_utilization(0, Cycles(600)), 24.0 / 600.0);
  EXPECT_DOUBLE_EQ(memory.l1_port_utilization(1, Cycles(600)), 4.0 / 600.0);
}

TEST(MemoryHierarchyTest, DramBoundStreamOfDistinctLines) {
  // M4 Max-like DRAM (546 GB/s at 1.578 GHz = 91000 bytes per 263 cycles, latency 480) and a
  // link fast enough never to limit. 2000 distinct lines from one core at cycle 0 all miss;
  // line k (1-based) completes at ceil(k * 128 * 263 / 91000) + 480.
  TinySpec spec;
  spec.gpu.clock_hz = 1.578e9;
  spec.memory.dram_bandwidth_bytes_per_s = 546e9;
  spec.memory.dram_latency_cycles = 480;
  spec.memory.core_to_l2_bytes_per_cycle = 1e6;
  MemoryHierarchy memory(spec.memory, spec.gpu);
  for (std::int64_t k = 1; k <= 2000; ++k) {
    const std::int64_t transfer_units = k * 128 * 263;
    const std::int64_t end = (transfer_units + 91000 - 1) / 91000;
    const MemoryAccessResult result =
        memory.access(0, Cycles(0), static_cast<std::uint64_t>(k) * 128, false);
    ASSERT_EQ(result.ready, Cycles(end + 480)) << "line " << k;
    ASSERT_EQ(result.served_by, MemoryLevel::kDram);
  }
  // Hand check of the last one: 2000 * 33664 = 67,328,000 = 91000 * 739 + 79,000 -> 740.
  EXPECT_EQ(memory.dram().idle_from(), Cycles(740));
}

TEST(MemoryHierarchyTest, SetAssociativeL1) {
  TinySpec spec;
  spec.memory.l1.size_bytes = 512;  // 4 lines, 2 ways -> 2 sets; line n -> set n mod 2
  spec.memory.l1.associativity = 2;
  MemoryHierarchy memory(spec.memory, spec.gpu);
  // Lines 0, 2, 4 share set 0: the third evicts line 0 although the L1 has free frames.
  memory.access(0, Cycles(0), 0ULL * 128, false);
  memory.access(0, Cycles(0), 2ULL * 128, false);
  memory.access(0, Cycles(0), 4ULL * 128, false);
  expect_access(memory, 0, 2000, 2ULL * 128, false, 2010, MemoryLevel::kL1);
  expect_access(memory, 0, 2000, 0ULL * 128, false, 2050, MemoryLevel::kL2);
}

TEST(MemoryHierarchyTest, RecordsNameEveryLevel) {
  const TinySpec spec;
  MemoryHierarchy memory(spec.memory, spec.gpu);
  memory.access(0, Cycles(0), kA, false);
  memory.access(1, Cycles(0), kB, false);
  std::vector<StatRecord> records;
  memory.append_records("memory.", records);
  const auto find = [&](const std::string& name) {
    const std::int64_t v = record_value(records, name);
    if (v < 0) ADD_FAILURE() << "no record " << name;
    return v;
  };
  EXPECT_EQ(find("memory.loads"), 2);
  EXPECT_EQ(find("memory.l1.read_misses"), 2);  // summed over both cores
  EXPECT_EQ(find("memory.l2.read_misses"), 2);
  EXPECT_EQ(find("memory.slc.read_misses"), 2);
  EXPECT_EQ(find("memory.core_link.bytes"), 256);
  EXPECT_EQ(find("memory.dram.bytes"), 256);
}

TEST(MemoryHierarchyTest, SameCallsGiveSameResults) {
  const TinySpec spec;
  MemoryHierarchy first(spec.memory, spec.gpu);
  MemoryHierarchy second(spec.memory, spec.gpu);
  std::uint64_t state = 7;
  for (int i = 0; i < 2000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const int core = static_cast<int>((state >> 20) % 2);
    const std::uint64_t address = ((state >> 33) % 24) * 128;
    const bool is_write = ((state >> 40) % 4) == 0;
    const MemoryAccessResult a = first.access(core, Cycles(i), address, is_write);
    const MemoryAccessResult b = second.access(core, Cycles(i), address, is_write);
    ASSERT_EQ(a.ready, b.ready);
    ASSERT_EQ(a.served_by, b.served_by);
    ASSERT_GE(a.ready, Cycles(i));
  }
}

TEST(MemoryHierarchyTest, RejectsInconsistentSpecs) {
  TinySpec spec;
  spec.memory.l2.line_bytes = 64;
  EXPECT_THROW(MemoryHierarchy(spec.memory, spec.gpu), InputError);
  spec = TinySpec{};
  spec.gpu.cores = 0;
  EXPECT_THROW(MemoryHierarchy(spec.memory, spec.gpu), InputError);
  spec = TinySpec{};
  spec.memory.dram_bandwidth_bytes_per_s = 0;
  EXPECT_THROW(MemoryHierarchy(spec.memory, spec.gpu), InputError);
  spec = TinySpec{};
  spec.memory.core_to_l2_bytes_per_cycle = -1;
  EXPECT_THROW(MemoryHierarchy(spec.memory, spec.gpu), InputError);
  spec = TinySpec{};
  spec.memory.dram_latency_cycles = -1;
  EXPECT_THROW(MemoryHierarchy(spec.memory, spec.gpu), InputError);
  spec = TinySpec{};
  spec.memory.l1_bytes_per_cycle = -1;
  EXPECT_THROW(MemoryHierarchy(spec.memory, spec.gpu), InputError);
  spec = TinySpec{};
  spec.memory.l2_bytes_per_cycle = -0.5;
  EXPECT_THROW(MemoryHierarchy(spec.memory, spec.gpu), InputError);
  spec = TinySpec{};
  MemoryHierarchy memory(spec.memory, spec.gpu);
  EXPECT_THROW(memory.access(2, Cycles(0), 0, false), InvariantError);
}

// Per-buffer load counters (memory.buffer<n>.*): the level serving each buffer's loads and
// the DRAM-served lines that follow the buffer's previous one; core 0 only.
TEST(MemoryHierarchyTest, CountsLevelsAndSequentialDramLinesPerBuffer) {
  const TinySpec spec;
  MemoryHierarchy memory(spec.memory, spec.gpu);
  const auto line_of = [](std::uint64_t buffer, std::uint64_t line) {
    return (buffer << kBufferAddressShift) + line * 128;
  };
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
  EXPECT_EQ(record_value(records, "memory.buffer1.served_dram"), 3);
  EXPECT_EQ(record_value(records, "memory.buffer1.served_l1"), 1);
  EXPECT_EQ(record_value(records, "memory.buffer1.served_l2"), 1);
  EXPECT_EQ(record_value(records, "memory.buffer1.served_slc"), 0);
  EXPECT_EQ(record_value(records, "memory.buffer1.dram_sequential"), 2);
  EXPECT_EQ(record_value(records, "memory.buffer3.served_dram"), 2);
  EXPECT_EQ(record_value(records, "memory.buffer3.dram_sequential"), 0);
  // Buffers never read have no counters.
  EXPECT_EQ(record_value(records, "memory.buffer0.served_l1"), -1);
  EXPECT_EQ(record_value(records, "memory.buffer2.served_l1"), -1);
}

}  // namespace
}  // namespace marlin::timing
