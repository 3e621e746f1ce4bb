#include "model/device/profile_checks.h"

#include <fmt/format.h>

#include <cstdint>

#include "model/device/device_names.h"
#include "model/device/profile_error.h"

namespace marlin::model {
namespace {

constexpr std::int64_t kBytesPerRegister = 4;  // registers are 32-bit

bool is_power_of_two(std::int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

// Runs the checks of one decoded spec. Each check names the JSON path of the leaf that has to
// change (for a mismatch between two leaves, the one that is derived or more specific) and
// the file that wrote it.
class Checker {
 public:
  Checker(const DeviceSpec& spec, const FileOfPath& file_of) : spec_(spec), file_of_(file_of) {}

  // Throws the error for `path` with the file that set it unless `ok`.
  void require(bool ok, std::string_view path, const std::string& message) const {
    if (!ok) throw profile_error(file_of_(path), path, message);
  }

  // Family against rule, and the lane count against the issue structure.
  void check_gpu() const {
    const GpuSpec& gpu = spec_.gpu;
    const bool apple9 = gpu.family == GpuFamily::kApple9;
    const OccupancyRule expected = apple9 ? OccupancyRule::kDynamicCaching : OccupancyRule::kStatic;
    require(spec_.occupancy.rule == expected, "occupancy.rule",
            fmt::format("the {} family uses the {} rule (gpu.family is {}), got {}",
                        to_string(gpu.family), to_string(expected), to_string(gpu.family),
                        to_string(spec_.occupancy.rule)));
    const std::int64_t lanes = std::int64_t{gpu.schedulers_per_core} * gpu.simd_width;
    require(gpu.alu_lanes_per_core == lanes, "gpu.alu_lanes_per_core",
            fmt::format("must equal schedulers_per_core * simd_width = {} * {} = {}, got {}",
                        gpu.schedulers_per_core, gpu.simd_width, lanes, gpu.alu_lanes_per_core));
  }

  // API limits against per-core residency limits; alignment; the assumed register count.
  void check_limits() const {
    const LimitsSpec& limits = spec_.limits;
    const int simd = spec_.gpu.simd_width;
    const std::int64_t simd_threads = std::int64_t{limits.max_simdgroups_per_core} * simd;
    require(simd_threads == limits.max_threads_per_core, "limits.max_simdgroups_per_core",
            fmt::format("max_simdgroups_per_core * simd_width = {} * {} = {} must equal "
                        "max_threads_per_core = {}",
                        limits.max_simdgroups_per_core, simd, simd_threads,
                        limits.max_threads_per_core));
    require(limits.max_threads_per_threadgroup <= limits.max_threads_per_core,
            "limits.max_threads_per_threadgroup",
            fmt::format("{} is above limits.max_threads_per_core = {}",
                        limits.max_threads_per_threadgroup, limits.max_threads_per_core));
    require(limits.max_threads_per_threadgroup % simd == 0, "limits.max_threads_per_threadgroup",
            fmt::format("{} is not a multiple of gpu.simd_width = {}",
                        limits.max_threads_per_threadgroup, simd));
    require(limits.max_threadgroups_per_core <= limits.max_simdgroups_per_core,
            "limits.max_threadgroups_per_core",
            fmt::format("{} is above limits.max_simdgroups_per_core = {} (a threadgroup holds at "
                        "least one simdgroup)",
                        limits.max_threadgroups_per_core, limits.max_simdgroups_per_core));
    const std::int64_t alignment = limits.threadgroup_memory_alignment_bytes;
    require(is_power_of_two(alignment), "limits.threadgroup_memory_alignment",
            fmt::format("{} B is not a power of two", alignment));
    require(limits.max_threadgroup_memory_bytes % alignment == 0, "limits.max_threadgroup_memory",
            fmt::format("{} B is not a multiple of limits.threadgroup_memory_alignment = {} B",
                        limits.max_threadgroup_memory_bytes, alignment));
    const OccupancySpec& occupancy = spec_.occupancy;
    require(occupancy.assumed_registers_per_thread <= limits.max_registers_per_thread,
            "occupancy.assumed_registers_per_thread",
            fmt::format("{} is above limits.max_registers_per_thread = {}",
                        occupancy.assumed_registers_per_thread, limits.max_registers_per_thread));
  }

  // Apple7/8: the per-threadgroup limit fits the fixed pool; the register table is a
  // monotone step function that fits the register file and covers every register count.
  void check_static_rule() const {
    const OccupancySpec& occupancy = spec_.occupancy;
    const LimitsSpec& limits = spec_.limits;
    require(limits.max_threadgroup_memory_bytes <= occupancy.threadgroup_memory_per_core_bytes,
            "limits.max_threadgroup_memory",
            fmt::format("{} B per threadgroup is above the per-core pool "
                        "occupancy.threadgroup_memory_per_core = {} B",
                        limits.max_threadgroup_memory_bytes,
                        occupancy.threadgroup_memory_per_core_bytes));
    const std::vector<RegisterStep>& table = occupancy.register_table;
    require(!table.empty(), "occupancy.register_table", "must have at least one row");
    for (std::size_t i = 0; i < table.size(); ++i) {
      const RegisterStep& row = table[i];
      const std::string path = fmt::format("occupancy.register_table[{}]", i);
      if (i > 0) {
        require(row.max_registers > table[i - 1].max_registers, path + ".max_registers",
                fmt::format("rows must be in ascending max_registers: {} after {}",
                            row.max_registers, table[i - 1].max_registers));
        require(row.max_threads <= table[i - 1].max_threads, path + ".max_threads",
                fmt::format("more registers cannot allow more threads: {} after {}",
                            row.max_threads, table[i - 1].max_threads));
      }
      require(row.max_threads % spec_.gpu.simd_width == 0, path + ".max_threads",
              fmt::format("{} is not a multiple of gpu.simd_width = {}", row.max_threads,
                          spec_.gpu.simd_width));
      require(row.max_threads <= limits.max_threads_per_core, path + ".max_threads",
              fmt::format("{} is above limits.max_threads_per_core = {}", row.max_threads,
                          limits.max_threads_per_core));
      const std::int64_t bytes =
          std::int64_t{row.max_threads} * row.max_registers * kBytesPerRegister;
      require(bytes <= occupancy.register_file_per_core_bytes, path,
              fmt::format("{} threads * {} registers * 4 B = {} B is above "
                          "occupancy.register_file_per_core = {} B",
                          row.max_threads, row.max_registers, bytes,
                          occupancy.register_file_per_core_bytes));
    }
    require(table.back().max_registers == limits.max_registers_per_thread,
            "occupancy.register_table",
            fmt::format("the last row covers {} registers but limits.max_registers_per_thread "
                        "is {}",
                        table.back().max_registers, limits.max_registers_per_thread));
  }

  // Apple9: the pool minus the cache reserve holds the largest threadgroup; knobs in range.
  void check_dynamic_rule() const {
    const OccupancySpec& occupancy = spec_.occupancy;
    require(occupancy.cache_reserve_bytes < occupancy.onchip_pool_per_core_bytes,
            "occupancy.cache_reserve",
            fmt::format("{} B leaves nothing of occupancy.onchip_pool_per_core = {} B",
                        occupancy.cache_reserve_bytes, occupancy.onchip_pool_per_core_bytes));
    const std::int64_t usable =
        occupancy.onchip_pool_per_core_bytes - occupancy.cache_reserve_bytes;
    require(spec_.limits.max_threadgroup_memory_bytes <= usable, "limits.max_threadgroup_memory",
            fmt::format("{} B per threadgroup is above the per-core pool "
                        "occupancy.onchip_pool_per_core - occupancy.cache_reserve = {} B",
                        spec_.limits.max_threadgroup_memory_bytes, usable));
    require(occupancy.register_residency > 0 && occupancy.register_residency <= 1,
            "occupancy.register_residency",
            fmt::format("must be in (0, 1], got {}", occupancy.register_residency));
    require(is_power_of_two(occupancy.threadgroup_memory_granule_bytes),
            "occupancy.threadgroup_memory_granule",
            fmt::format("{} B is not a power of two", occupancy.threadgroup_memory_granule_bytes));
  }

  // One cache level: power-of-two lines and a whole number of sets.
  void check_cache(const CacheSpec& cache, std::string_view name) const {
    const std::string prefix = fmt::format("memory.{}.", name);
    require(is_power_of_two(cache.line_bytes), prefix + "line",
            fmt::format("{} B is not a power of two", cache.line_bytes));
    // The set size is computed only when it cannot exceed the cache size (no overflow).
    const bool fits = cache.line_bytes <= cache.size_bytes &&
                      cache.associativity <= cache.size_bytes / cache.line_bytes;
    require(fits && cache.size_bytes % (std::int64_t{cache.line_bytes} * cache.associativity) == 0,
            prefix + "size",
            fmt::format("{} B is not a whole number of sets of {} ways * {} B lines",
                        cache.size_bytes, cache.associativity, cache.line_bytes));
  }

  // Cache geometry, latencies that grow from L1 to DRAM, bank width.
  void check_memory() const {
    const MemorySpec& memory = spec_.memory;
    check_cache(memory.l1, "l1");
    check_cache(memory.l2, "l2");
    check_cache(memory.slc, "slc");
    const auto require_above = [&](int lower, std::string_view lower_path, int upper,
                                   std::string_view upper_path) {
      require(upper > lower, upper_path,
              fmt::format("{} cycles must be above {} = {} cycles (a farther level cannot be "
                          "faster)",
                          upper, lower_path, lower));
    };
    require_above(memory.l1.hit_latency_cycles, "memory.l1.hit_latency",
                  memory.l2.hit_latency_cycles, "memory.l2.hit_latency");
    require_above(memory.l2.hit_latency_cycles, "memory.l2.hit_latency",
                  memory.slc.hit_latency_cycles, "memory.slc.hit_latency");
    require_above(memory.slc.hit_latency_cycles, "memory.slc.hit_latency",
                  memory.dram_latency_cycles, "memory.dram_latency");
    const ThreadgroupMemorySpec& tgm = spec_.threadgroup_memory;
    require(is_power_of_two(tgm.bank_width_bytes), "threadgroup_memory.bank_width",
            fmt::format("{} B is not a power of two", tgm.bank_width_bytes));
  }

 private:
  const DeviceSpec& spec_;
  const FileOfPath& file_of_;
};

}  // namespace

void check_profile_consistency(const DeviceSpec& spec, const FileOfPath& file_of) {
  // Fields of the other occupancy rule were absent and keep their defaults; they are not checked.
  const Checker checker(spec, file_of);
  checker.check_gpu();
  checker.check_limits();
  if (spec.occupancy.rule == OccupancyRule::kStatic) {
    checker.check_static_rule();
  } else {
    checker.check_dynamic_rule();
  }
  checker.check_memory();
}

}  // namespace marlin::model
