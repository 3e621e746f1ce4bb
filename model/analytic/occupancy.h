// Occupancy: how many threadgroups of one kernel pipeline are resident on one GPU core, which
// per-core resource limits that number, and how much of a resource must be given up to fit one
// more threadgroup.
//
// Contract: plain structs in, plain structs out; nothing is printed. A launch that Metal would
// refuse (too many threads, too much threadgroup memory, too many registers) is not an error:
// the result says `refused` and why. The rules (static Apple7/8, dynamic caching Apple9) and
// every rounding are documented in docs/analytical-model.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/device/device_spec.h"

namespace marlin::analytic {

// One pipeline/launch: the threadgroup size and the resources one threadgroup asks for.
struct OccupancyQuery {
  int threads_per_threadgroup = 0;
  std::int64_t threadgroup_memory_bytes = 0;
  std::optional<int> registers_per_thread;  // 32-bit registers; nullopt when unknown
};

// The parts of a device the occupancy rules read (copied from a DeviceSpec, or built in tests).
struct OccupancyDeviceSpec {
  model::GpuSpec gpu;
  model::LimitsSpec limits;
  model::OccupancySpec occupancy;
};

OccupancyDeviceSpec occupancy_spec_of(const model::DeviceSpec& device);

// The per-core limits, in the fixed order of the result's `limits` vector.
enum class LimitKind {
  kThreads,            // thread slots per core (max_threads_per_core)
  kSimdgroups,         // simdgroup slots per core (max_simdgroups_per_core)
  kThreadgroupMemory,  // static rule: threadgroup memory per core
  kRegisters,          // static rule: register table (threads per core at R registers)
  kOnchipPool,         // dynamic caching: registers + threadgroup memory in the on-chip pool
  kThreadgroups,       // hard cap on resident threadgroups per core
};

std::string_view limit_name(LimitKind kind);  // "threads", "simdgroups", ...

// What one limit allows. `per_threadgroup` and `per_core` are in `unit`;
// resident_threadgroups = floor(per_core / per_threadgroup) unless `note` says otherwise.
struct OccupancyLimit {
  LimitKind kind = LimitKind::kThreads;
  bool applies = false;                    // false: not modelled for this rule or these inputs
  std::int64_t resident_threadgroups = 0;  // threadgroups per core this limit allows (if applies)
  std::int64_t per_threadgroup = 0;        // allocated (rounded) amount one threadgroup takes
  std::int64_t per_core = 0;               // capacity of one core
  std::string unit;                        // "threads", "simdgroups", "bytes", "threadgroups"
  std::string note;                        // why it does not apply, or what was assumed
};

// Dynamic caching: how one threadgroup's footprint in the on-chip pool is made up (bytes).
struct PoolFootprint {
  std::int64_t pool_bytes = 0;                // onchip_pool_per_core_bytes
  std::int64_t cache_reserve_bytes = 0;       // kept for the cache
  std::int64_t available_bytes = 0;           // pool - reserve
  std::int64_t threadgroup_memory_bytes = 0;  // rounded up to the pool granule
  std::int64_t register_bytes = 0;            // ceil(allocated threads * registers * 4 * residency)
  std::int64_t footprint_bytes = 0;           // threadgroup memory + registers
  bool oversubscribed = false;                // one threadgroup alone exceeds the available pool
};

// A resource whose reduction the next-step search tries.
enum class Resource { kThreadgroupMemory, kRegisters, kThreads };

std::string_view resource_name(Resource resource);  // "threadgroup_memory", ...

// The smallest reduction of one resource alone that raises the occupancy (resident simdgroups
// per core): one more threadgroup for threadgroup memory and registers; for threads, enough
// more threadgroups of fewer simdgroups to hold more simdgroups in all.
struct NextStep {
  Resource resource = Resource::kThreads;
  bool reachable = false;
  std::string note;            // why it is not reachable or not searched
  std::int64_t current = 0;    // bytes, registers or threads asked for now
  std::int64_t new_value = 0;  // largest value that reaches more threadgroups (if reachable)
  std::int64_t reduction = 0;  // current - new_value
  std::int64_t resident_threadgroups = 0;  // at new_value
  double occupancy_percent = 0;            // at new_value
};

struct OccupancyResult {
  bool refused = false;        // Metal would refuse the pipeline or launch
  std::string refusal_reason;  // one line, when refused
  model::OccupancyRule rule = model::OccupancyRule::kStatic;

  int simdgroups_per_threadgroup = 0;                   // ceil(threads / simd width)
  int allocated_threads_per_threadgroup = 0;            // simdgroups * simd width
  std::int64_t allocated_threadgroup_memory_bytes = 0;  // rounded per the rule
  std::optional<int> registers_used;  // given, or assumed (dynamic caching), or none
  bool registers_assumed = false;     // registers_used came from assumed_registers_per_thread

  std::vector<OccupancyLimit> limits;  // one per LimitKind, in enum order (empty when refused)
  std::optional<PoolFootprint> pool;   // dynamic caching only

  std::int64_t resident_threadgroups = 0;  // per core
  std::int64_t resident_simdgroups = 0;    // per core
  double occupancy_percent = 0;            // resident simdgroups / max simdgroups * 100
  std::vector<LimitKind> binding;          // every applying limit equal to the minimum
  std::vector<NextStep> next_steps;        // threadgroup memory, registers, threads
};

// Occupancy of one query, with the next-step search.
OccupancyResult compute_occupancy(const OccupancyQuery& query, const OccupancyDeviceSpec& device);

// compute_occupancy of a launch on `device`: `threads` threads per threadgroup asking for
// `threadgroup_bytes` of threadgroup memory, registers unknown.
OccupancyResult launch_occupancy(const model::DeviceSpec& device, int threads,
                                 std::int64_t threadgroup_bytes);

// Occupancy without the next-step search (what the search and the sweeps evaluate).
OccupancyResult evaluate_occupancy(const OccupancyQuery& query, const OccupancyDeviceSpec& device);

// Static rule: threads per core the register table allows at `registers` 32-bit registers per
// thread, or nullopt when the table has no row for that many.
std::optional<std::int64_t> register_table_threads_per_core(const OccupancyDeviceSpec& device,
                                                            int registers);

// One point of an occupancy sweep.
struct SweepPoint {
  std::int64_t x = 0;  // the swept value: threads, bytes or registers
  bool refused = false;
  std::int64_t resident_threadgroups = 0;
  std::int64_t resident_simdgroups = 0;
  double occupancy_percent = 0;
  std::vector<LimitKind> binding;
};

// Default step of the threadgroup-memory sweep, in bytes.
inline constexpr std::int64_t kDefaultTgMemorySweepStepBytes = 1024;

// Threads per threadgroup = simd width, 2 * simd width, ... up to max_threads_per_threadgroup;
// the other fields of `base` are kept.
std::vector<SweepPoint> sweep_threads(const OccupancyQuery& base,
                                      const OccupancyDeviceSpec& device);

// Threadgroup memory = 0, step, 2 * step, ... up to max_threadgroup_memory_bytes (the limit
// itself is always the last point). Throws InputError when step < 1.
std::vector<SweepPoint> sweep_threadgroup_memory(
    const OccupancyQuery& base, const OccupancyDeviceSpec& device,
    std::int64_t step_bytes = kDefaultTgMemorySweepStepBytes);

// Registers per thread = 1 .. max_registers_per_thread.
std::vector<SweepPoint> sweep_registers(const OccupancyQuery& base,
                                        const OccupancyDeviceSpec& device);

}  // namespace marlin::analytic
