// DeviceSpec: every hardware parameter of one simulated Apple GPU, as loaded from a profile.
//
// Contract: a DeviceSpec is filled only by the profile loader (profile_loader.h), which
// validates it; code never invents device numbers. Each component of the simulator receives
// the sub-spec it needs (GpuSpec, LimitsSpec, ...), never the whole profile. Units are fixed
// by the field names: *_bytes are bytes, *_cycles are cycles of the core clock, *_hz is
// hertz, *_bytes_per_s is bytes per second, *_ns is nanoseconds. The provenance map records,
// for each JSON path of the profile, where the number came from.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace marlin::model {

// Apple GPU families as the Metal feature set tables name them.
enum class GpuFamily { kApple7, kApple8, kApple9 };

// How resident threadgroups per core are decided; see docs/analytical-model.md.
enum class OccupancyRule {
  kStatic,          // Apple7/8: fixed register file and threadgroup memory per core.
  kDynamicCaching,  // Apple9: registers, threadgroup memory and cache share one pool.
};

// Where a profile number comes from.
enum class SourceKind { kVendor, kMeasured, kReverseEngineered, kEstimate, kCalibrated };

struct Provenance {
  std::string value;  // the value as written in the profile, e.g. "546 GB/s"
  SourceKind kind = SourceKind::kEstimate;
  std::string source;  // citation: repository and path, URL, or the formula of an estimate
  std::string note;    // optional: why an estimate was chosen, caveats
};

// How a scheduler picks among its ready simdgroups (docs/timing-model.md, "Core and schedulers").
enum class IssuePolicy : std::uint8_t {
  kOldestFirst,       // the ready simdgroup resident longest (dispatch order, then slot)
  kGreedyThenOldest,  // the simdgroup that issued last, if ready; otherwise oldest first
};

struct GpuSpec {
  GpuFamily family = GpuFamily::kApple9;
  int cores = 0;
  double clock_hz = 0;
  int simd_width = 32;
  int schedulers_per_core = 4;
  int alu_lanes_per_core = 128;  // FP32 lanes; must equal schedulers_per_core * simd_width
  // Added for the timing model: the schedulers' choice among ready simdgroups (profile field
  // gpu.issue_policy). Defaults to oldest first for specs built in code.
  IssuePolicy issue_policy = IssuePolicy::kOldestFirst;
};

// API limits (what Metal refuses) and hard per-core residency caps.
struct LimitsSpec {
  int max_threads_per_threadgroup = 1024;
  std::int64_t max_threadgroup_memory_bytes = 32768;  // per threadgroup (API limit)
  std::int64_t threadgroup_memory_alignment_bytes = 16;
  int max_registers_per_thread = 128;  // 32-bit registers
  int max_threads_per_core = 3072;
  int max_simdgroups_per_core = 96;
  int max_threadgroups_per_core = 32;
};

// One row of a register-occupancy table: up to `max_registers` 32-bit registers per thread,
// at most `max_threads` threads are resident per core.
struct RegisterStep {
  int max_registers = 0;
  int max_threads = 0;
};

struct OccupancySpec {
  OccupancyRule rule = OccupancyRule::kStatic;
  // Static rule (Apple7/8).
  std::int64_t threadgroup_memory_per_core_bytes = 0;
  std::int64_t register_file_per_core_bytes = 0;
  std::vector<RegisterStep> register_table;  // ascending max_registers
  // Dynamic Caching rule (Apple9): calibration knobs.
  std::int64_t onchip_pool_per_core_bytes = 0;         // registers + threadgroup memory + cache
  std::int64_t cache_reserve_bytes = 0;                // part of the pool always left to the cache
  double register_residency = 1.0;                     // fraction of peak registers held on average
  std::int64_t threadgroup_memory_granule_bytes = 16;  // allocation rounding in the pool
  // Both rules: registers assumed when the caller does not give a count.
  int assumed_registers_per_thread = 0;
};

// Issue cost of one op class on one scheduler: it can issue the next instruction of this
// class `throughput_cycles` later; the result is ready `latency_cycles` after issue.
struct OpTiming {
  int throughput_cycles = 1;
  int latency_cycles = 1;
};

struct PipeSpec {
  OpTiming fp16_fma;
  OpTiming fp32_fma;
  OpTiming fp32_add;
  OpTiming int_add;  // also logic and shifts
  OpTiming int_mul;
  OpTiming fp_cmp_select;
  OpTiming convert;
  OpTiming exp2_log2;
  OpTiming reciprocal;
  OpTiming rsqrt;
  OpTiming shuffle;      // simd_shuffle*, simd_broadcast
  OpTiming simd_reduce;  // simd_sum/max/min, prefix sums
  OpTiming matmul_f16;   // one 8x8x8 simdgroup_multiply_accumulate, half inputs
  OpTiming matmul_f32;   // same, float inputs
};

enum class BankRule {
  kClassic,  // word address modulo bank count; distinct words in one bank serialize
};

struct ThreadgroupMemorySpec {
  int banks = 32;
  int bank_width_bytes = 4;
  BankRule bank_rule = BankRule::kClassic;
  int bytes_per_cycle = 64;  // per core
  int latency_cycles = 0;
  int threadgroup_barrier_cycles = 0;
  int simdgroup_barrier_cycles = 0;
};

struct CacheSpec {
  std::int64_t size_bytes = 0;
  int line_bytes = 128;
  int associativity = 0;
  int hit_latency_cycles = 0;
};

struct MemorySpec {
  CacheSpec l1;                           // per core
  CacheSpec l2;                           // shared by all cores
  CacheSpec slc;                          // system level cache, shared with the CPU
  double core_to_l2_bytes_per_cycle = 0;  // per core
  // Added for the timing model: bytes per core cycle each core's L1 serves (loads, hits and
  // fills alike; profile field memory.l1.bytes_per_cycle) and the shared L2 serves to all cores
  // together (memory.l2.bytes_per_cycle). 0 = no limit (specs built in code); profiles must
  // give a positive rate.
  double l1_bytes_per_cycle = 0;  // per core
  double l2_bytes_per_cycle = 0;  // shared by all cores
  double dram_bandwidth_bytes_per_s = 0;
  int dram_latency_cycles = 0;
};

struct DispatchSpec {
  double dispatch_overhead_s = 0;        // GPU-side cost of one dispatch in an encoder
  double command_buffer_overhead_s = 0;  // submitting and waiting on one command buffer
};

struct DeviceSpec {
  std::string name;         // profile name, e.g. "m4max"
  std::string description;  // e.g. "Apple M4 Max, 40-core GPU"
  std::string file;         // the profile file it was loaded from
  GpuSpec gpu;
  LimitsSpec limits;
  OccupancySpec occupancy;
  PipeSpec pipes;
  ThreadgroupMemorySpec threadgroup_memory;
  MemorySpec memory;
  DispatchSpec dispatch;
  std::map<std::string, Provenance> provenance;  // JSON path -> source of that number
};

}  // namespace marlin::model
