// Occupancy rules: refusals, the per-core limits of the static and dynamic-caching rules, and
// the resident threadgroups they leave. The next-step search and sweeps are in
// occupancy_search.cpp.
#include "model/analytic/occupancy.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fmt/core.h"
#include "model/common/invariant.h"

namespace marlin::analytic {
namespace {

using model::OccupancyRule;

constexpr std::int64_t kBytesPerRegister = 4;  // registers are counted as 32-bit

std::int64_t round_up(std::int64_t value, std::int64_t granule) {
  if (granule <= 1) return value;
  return (value + granule - 1) / granule * granule;
}

// ceil() that ignores floating-point noise just above an integer (x.0000000001 -> x).
std::int64_t ceil_tolerant(double value) {
  const double nearest = std::round(value);
  if (std::abs(value - nearest) < 1e-6) return static_cast<std::int64_t>(nearest);
  return static_cast<std::int64_t>(std::ceil(value));
}

OccupancyLimit make_limit(LimitKind kind, std::int64_t per_threadgroup, std::int64_t per_core,
                          std::string unit) {
  OccupancyLimit limit;
  limit.kind = kind;
  limit.applies = true;
  limit.per_threadgroup = per_threadgroup;
  limit.per_core = per_core;
  limit.unit = std::move(unit);
  MARLIN_CHECK(per_threadgroup > 0, "an applying limit has a positive per-threadgroup amount");
  limit.resident_threadgroups = per_core / per_threadgroup;
  return limit;
}

OccupancyLimit not_applied(LimitKind kind, std::string unit, std::string note) {
  OccupancyLimit limit;
  limit.kind = kind;
  limit.applies = false;
  limit.unit = std::move(unit);
  limit.note = std::move(note);
  return limit;
}

// The first API or register-table limit the query breaks, or an empty string.
std::string refusal_of(const OccupancyQuery& query, const OccupancyDeviceSpec& device) {
  const model::LimitsSpec& limits = device.limits;
  const int threads = query.threads_per_threadgroup;
  if (threads < 1) {
    return fmt::format("threads per threadgroup must be at least 1 (got {})", threads);
  }
  if (threads > limits.max_threads_per_threadgroup) {
    return fmt::format("{} threads per threadgroup exceed the device limit of {}", threads,
                       limits.max_threads_per_threadgroup);
  }
  if (query.threadgroup_memory_bytes < 0) {
    return fmt::format("threadgroup memory must not be negative (got {} bytes)",
                       query.threadgroup_memory_bytes);
  }
  if (query.threadgroup_memory_bytes > limits.max_threadgroup_memory_bytes) {
    return fmt::format("{} bytes of threadgroup memory exceed the per-threadgroup limit of {}",
                       query.threadgroup_memory_bytes, limits.max_threadgroup_memory_bytes);
  }
  if (query.registers_per_thread) {
    const int regs = *query.registers_per_thread;
    if (regs < 1) {
      return fmt::format("registers per thread must be at least 1 (got {})", regs);
    }
    if (regs > limits.max_registers_per_thread) {
      return fmt::format("{} registers per thread exceed the device limit of {}", regs,
                         limits.max_registers_per_thread);
    }
    if (device.occupancy.rule == OccupancyRule::kStatic) {
      const auto table_threads = register_table_threads_per_core(device, regs);
      if (!table_threads) {
        return fmt::format("the register table has no row for {} registers per thread", regs);
      }
      if (threads > *table_threads) {
        return fmt::format(
            "{} threads per threadgroup exceed the {} the register table allows at {} registers",
            threads, *table_threads, regs);
      }
    }
  }
  if (device.occupancy.rule == OccupancyRule::kStatic) {
    const std::int64_t alloc =
        round_up(query.threadgroup_memory_bytes, device.limits.threadgroup_memory_alignment_bytes);
    if (alloc > device.occupancy.threadgroup_memory_per_core_bytes) {
      return fmt::format("{} bytes of threadgroup memory exceed the {} bytes of one core", alloc,
                         device.occupancy.threadgroup_memory_per_core_bytes);
    }
  }
  return {};
}

// Static rule (Apple7/8): threadgroup memory and registers are separate per-core capacities.
void add_static_limits(const OccupancyQuery& query, const OccupancyDeviceSpec& device,
                       OccupancyResult& result) {
  const std::int64_t alloc = result.allocated_threadgroup_memory_bytes;
  if (alloc == 0) {
    result.limits.push_back(
        not_applied(LimitKind::kThreadgroupMemory, "bytes", "no threadgroup memory requested"));
  } else {
    result.limits.push_back(make_limit(LimitKind::kThreadgroupMemory, alloc,
                                       device.occupancy.threadgroup_memory_per_core_bytes,
                                       "bytes"));
  }
  if (!query.registers_per_thread) {
    result.limits.push_back(not_applied(LimitKind::kRegisters, "threads",
                                        "registers not given; register limit not applied"));
  } else {
    const int regs = *query.registers_per_thread;
    const auto table_threads = register_table_threads_per_core(device, regs);
    MARLIN_CHECK(table_threads.has_value(), "refusal_of rejects registers outside the table");
    OccupancyLimit limit = make_limit(
        LimitKind::kRegisters, result.allocated_threads_per_threadgroup, *table_threads, "threads");
    limit.note =
        fmt::format("register table: {} registers -> {} threads per core", regs, *table_threads);
    result.limits.push_back(std::move(limit));
  }
  result.limits.push_back(
      not_applied(LimitKind::kOnchipPool, "bytes", "static rule: no shared on-chip pool"));
}

// Dynamic caching (Apple9): threadgroup memory and registers share one on-chip pool.
void add_dynamic_limits(const OccupancyDeviceSpec& device, OccupancyResult& result) {
  const model::OccupancySpec& spec = device.occupancy;
  result.limits.push_back(not_applied(LimitKind::kThreadgroupMemory, "bytes",
                                      "dynamic caching: counted in the on-chip pool"));
  result.limits.push_back(not_applied(LimitKind::kRegisters, "threads",
                                      "dynamic caching: counted in the on-chip pool"));
  PoolFootprint pool;
  pool.pool_bytes = spec.onchip_pool_per_core_bytes;
  pool.cache_reserve_bytes = spec.cache_reserve_bytes;
  pool.available_bytes = std::max<std::int64_t>(0, pool.pool_bytes - pool.cache_reserve_bytes);
  pool.threadgroup_memory_bytes = result.allocated_threadgroup_memory_bytes;
  const int regs = result.registers_used.value_or(0);
  pool.register_bytes =
      ceil_tolerant(static_cast<double>(result.allocated_threads_per_threadgroup) * regs *
                    kBytesPerRegister * spec.register_residency);
  pool.footprint_bytes = pool.threadgroup_memory_bytes + pool.register_bytes;

  if (pool.footprint_bytes <= 0) {
    result.limits.push_back(
        not_applied(LimitKind::kOnchipPool, "bytes", "threadgroup takes nothing from the pool"));
  } else {
    OccupancyLimit limit =
        make_limit(LimitKind::kOnchipPool, pool.footprint_bytes, pool.available_bytes, "bytes");
    limit.note = fmt::format(
        "{} B threadgroup memory + {} B registers ({} registers{}, "
        "residency {})",
        pool.threadgroup_memory_bytes, pool.register_bytes, regs,
        result.registers_assumed ? " assumed" : "", spec.register_residency);
    if (limit.resident_threadgroups == 0) {
      // A launch always runs one threadgroup; the excess is taken from the cache or spilled.
      pool.oversubscribed = true;
      limit.resident_threadgroups = 1;
      limit.note += "; one threadgroup exceeds the available pool, counted as 1";
    }
    result.limits.push_back(std::move(limit));
  }
  result.pool = pool;
}

// `result` refused because not one threadgroup fits on a core (a core with fewer thread slots,
// simdgroup slots or register-table threads than one threadgroup takes), naming the first such
// limit. Threadgroup memory over a core's is refused earlier (refusal_of), and the on-chip pool
// never refuses: it counts an oversized threadgroup as 1.
OccupancyResult refused_as_too_large(OccupancyResult result) {
  for (const OccupancyLimit& limit : result.limits) {
    if (limit.applies && limit.resident_threadgroups == 0) {
      result.refusal_reason =
          fmt::format("one threadgroup needs {} {}, more than the {} a core holds ({} limit)",
                      limit.per_threadgroup, limit.unit, limit.per_core, limit_name(limit.kind));
      break;
    }
  }
  result.refused = true;
  result.limits.clear();
  result.binding.clear();
  return result;
}

}  // namespace

std::string_view limit_name(LimitKind kind) {
  switch (kind) {
    case LimitKind::kThreads:
      return "threads";
    case LimitKind::kSimdgroups:
      return "simdgroups";
    case LimitKind::kThreadgroupMemory:
      return "threadgroup_memory";
    case LimitKind::kRegisters:
      return "registers";
    case LimitKind::kOnchipPool:
      return "onchip_pool";
    case LimitKind::kThreadgroups:
      return "threadgroups";
  }
  return "unknown";
}

std::string_view resource_name(Resource resource) {
  switch (resource) {
    case Resource::kThreadgroupMemory:
      return "threadgroup_memory";
    case Resource::kRegisters:
      return "registers";
    case Resource::kThreads:
      return "threads";
  }
  return "unknown";
}

OccupancyDeviceSpec occupancy_spec_of(const model::DeviceSpec& device) {
  return OccupancyDeviceSpec{device.gpu, device.limits, device.occupancy};
}

std::optional<std::int64_t> register_table_threads_per_core(const OccupancyDeviceSpec& device,
                                                            int registers) {
  const auto& table = device.occupancy.register_table;
  if (table.empty() || registers < 1) return std::nullopt;
  const model::RegisterStep& first = table.front();
  if (registers < first.max_registers) {
    // Below the table: the register file divided into whole simdgroups, capped by the thread
    // slots and never fewer threads than the first row allows.
    const std::int64_t simd = device.gpu.simd_width;
    const std::int64_t simdgroups =
        device.occupancy.register_file_per_core_bytes / (registers * kBytesPerRegister * simd);
    const std::int64_t threads =
        std::min<std::int64_t>(simdgroups * simd, device.limits.max_threads_per_core);
    return std::max<std::int64_t>(threads, first.max_threads);
  }
  for (const model::RegisterStep& row : table) {
    if (row.max_registers >= registers) return row.max_threads;
  }
  return std::nullopt;
}

OccupancyResult evaluate_occupancy(const OccupancyQuery& query, const OccupancyDeviceSpec& device) {
  OccupancyResult result;
  result.rule = device.occupancy.rule;
  result.refusal_reason = refusal_of(query, device);
  if (!result.refusal_reason.empty()) {
    result.refused = true;
    return result;
  }
  const bool dynamic = device.occupancy.rule == OccupancyRule::kDynamicCaching;
  const int simd = device.gpu.simd_width;
  MARLIN_CHECK(simd > 0, "simd width is positive");
  result.simdgroups_per_threadgroup = (query.threads_per_threadgroup + simd - 1) / simd;
  result.allocated_threads_per_threadgroup = result.simdgroups_per_threadgroup * simd;
  result.allocated_threadgroup_memory_bytes = round_up(
      query.threadgroup_memory_bytes, dynamic ? device.occupancy.threadgroup_memory_granule_bytes
                                              : device.limits.threadgroup_memory_alignment_bytes);
  result.registers_used = query.registers_per_thread;
  if (dynamic && !query.registers_per_thread) {
    result.registers_used = device.occupancy.assumed_registers_per_thread;
    result.registers_assumed = true;
  }

  result.limits.push_back(make_limit(LimitKind::kThreads, result.allocated_threads_per_threadgroup,
                                     device.limits.max_threads_per_core, "threads"));
  result.limits.push_back(make_limit(LimitKind::kSimdgroups, result.simdgroups_per_threadgroup,
                                     device.limits.max_simdgroups_per_core, "simdgroups"));
  if (dynamic) {
    add_dynamic_limits(device, result);
  } else {
    add_static_limits(query, device, result);
  }
  result.limits.push_back(make_limit(LimitKind::kThreadgroups, 1,
                                     device.limits.max_threadgroups_per_core, "threadgroups"));

  std::int64_t resident = std::numeric_limits<std::int64_t>::max();
  for (const OccupancyLimit& limit : result.limits) {
    if (limit.applies) resident = std::min(resident, limit.resident_threadgroups);
  }
  MARLIN_CHECK(resident != std::numeric_limits<std::int64_t>::max(),
               "the thread limit always applies");
  if (resident == 0) return refused_as_too_large(result);
  for (const OccupancyLimit& limit : result.limits) {
    if (limit.applies && limit.resident_threadgroups == resident) {
      result.binding.push_back(limit.kind);
    }
  }
  result.resident_threadgroups = resident;
  result.resident_simdgroups = resident * result.simdgroups_per_threadgroup;
  result.occupancy_percent = device.limits.max_simdgroups_per_core > 0
                                 ? 100.0 * static_cast<double>(result.resident_simdgroups) /
                                       device.limits.max_simdgroups_per_core
                                 : 0.0;
  return result;
}

}  // namespace marlin::analytic
