// The next-step search (how much of one resource to give up to raise the occupancy)
// and the occupancy sweeps. Both evaluate the plain occupancy rules at many points; the search
// walks down one value at a time, which is cheap and obviously correct.
#include <algorithm>

#include "fmt/core.h"
#include "model/analytic/occupancy.h"
#include "model/common/input_error.h"

namespace marlin::analytic {
namespace {

std::int64_t round_up(std::int64_t value, std::int64_t granule) {
  if (granule <= 1) return value;
  return (value + granule - 1) / granule * granule;
}

NextStep unreachable(Resource resource, std::int64_t current, std::string note) {
  NextStep step;
  step.resource = resource;
  step.current = current;
  step.note = std::move(note);
  return step;
}

// Walks `candidates` (largest first) and returns the first whose occupancy (resident
// simdgroups) beats `baseline`. For threadgroup memory and registers that is one more resident
// threadgroup; for threads, more threadgroups of fewer simdgroups must add up to more.
template <typename MakeQuery>
NextStep search_down(Resource resource, std::int64_t current,
                     const std::vector<std::int64_t>& candidates, MakeQuery make_query,
                     const OccupancyResult& baseline, const OccupancyDeviceSpec& device) {
  for (const std::int64_t value : candidates) {
    const OccupancyResult trial = evaluate_occupancy(make_query(value), device);
    if (!trial.refused && trial.resident_simdgroups > baseline.resident_simdgroups) {
      NextStep step;
      step.resource = resource;
      step.reachable = true;
      step.current = current;
      step.new_value = value;
      step.reduction = current - value;
      step.resident_threadgroups = trial.resident_threadgroups;
      step.occupancy_percent = trial.occupancy_percent;
      return step;
    }
  }
  return unreachable(resource, current, "not reachable by this resource alone");
}

// Threadgroup memory: the occupancy depends only on the rounded allocation, so the candidates
// are the multiples of the allocation granule below the current allocation, down to 0.
NextStep threadgroup_memory_step(const OccupancyQuery& query, const OccupancyResult& baseline,
                                 const OccupancyDeviceSpec& device) {
  const std::int64_t current = query.threadgroup_memory_bytes;
  const std::int64_t alloc = baseline.allocated_threadgroup_memory_bytes;
  if (alloc == 0) {
    return unreachable(Resource::kThreadgroupMemory, current, "no threadgroup memory to reduce");
  }
  const bool dynamic = device.occupancy.rule == model::OccupancyRule::kDynamicCaching;
  const std::int64_t granule =
      std::max<std::int64_t>(1, dynamic ? device.occupancy.threadgroup_memory_granule_bytes
                                        : device.limits.threadgroup_memory_alignment_bytes);
  std::vector<std::int64_t> candidates;
  for (std::int64_t value = round_up(alloc, granule) - granule; value >= 0; value -= granule) {
    candidates.push_back(value);
  }
  auto make_query = [&query](std::int64_t value) {
    OccupancyQuery trial = query;
    trial.threadgroup_memory_bytes = value;
    return trial;
  };
  return search_down(Resource::kThreadgroupMemory, current, candidates, make_query, baseline,
                     device);
}

NextStep registers_step(const OccupancyQuery& query, const OccupancyResult& baseline,
                        const OccupancyDeviceSpec& device) {
  if (!baseline.registers_used) {
    return unreachable(Resource::kRegisters, 0, "registers not given");
  }
  const int current = *baseline.registers_used;
  std::vector<std::int64_t> candidates;
  for (int value = current - 1; value >= 1; --value) candidates.push_back(value);
  auto make_query = [&query](std::int64_t value) {
    OccupancyQuery trial = query;
    trial.registers_per_thread = static_cast<int>(value);
    return trial;
  };
  NextStep step =
      search_down(Resource::kRegisters, current, candidates, make_query, baseline, device);
  if (baseline.registers_assumed) {
    step.note += step.note.empty() ? "" : "; ";
    step.note += fmt::format("from the assumed {} registers per thread", current);
  }
  return step;
}

NextStep threads_step(const OccupancyQuery& query, const OccupancyResult& baseline,
                      const OccupancyDeviceSpec& device) {
  const int current = query.threads_per_threadgroup;
  std::vector<std::int64_t> candidates;
  for (int value = current - 1; value >= 1; --value) candidates.push_back(value);
  auto make_query = [&query](std::int64_t value) {
    OccupancyQuery trial = query;
    trial.threads_per_threadgroup = static_cast<int>(value);
    return trial;
  };
  return search_down(Resource::kThreads, current, candidates, make_query, baseline, device);
}

SweepPoint point_of(std::int64_t x, const OccupancyResult& result) {
  SweepPoint point;
  point.x = x;
  point.refused = result.refused;
  point.resident_threadgroups = result.resident_threadgroups;
  point.resident_simdgroups = result.resident_simdgroups;
  point.occupancy_percent = result.occupancy_percent;
  point.binding = result.binding;
  return point;
}

}  // namespace

OccupancyResult compute_occupancy(const OccupancyQuery& query, const OccupancyDeviceSpec& device) {
  OccupancyResult result = evaluate_occupancy(query, device);
  if (result.refused) return result;
  result.next_steps.push_back(threadgroup_memory_step(query, result, device));
  result.next_steps.push_back(registers_step(query, result, device));
  result.next_steps.push_back(threads_step(query, result, device));
  return result;
}

OccupancyResult launch_occupancy(const model::DeviceSpec& device, int threads,
                                 std::int64_t threadgroup_bytes) {
  OccupancyQuery query;
  query.threads_per_threadgroup = threads;
  query.threadgroup_memory_bytes = threadgroup_bytes;
  return compute_occupancy(query, occupancy_spec_of(device));
}

std::vector<SweepPoint> sweep_threads(const OccupancyQuery& base,
                                      const OccupancyDeviceSpec& device) {
  std::vector<SweepPoint> points;
  const int simd = device.gpu.simd_width;
  for (int threads = simd; simd > 0 && threads <= device.limits.max_threads_per_threadgroup;
       threads += simd) {
    OccupancyQuery query = base;
    query.threads_per_threadgroup = threads;
    points.push_back(point_of(threads, evaluate_occupancy(query, device)));
  }
  return points;
}

std::vector<SweepPoint> sweep_threadgroup_memory(const OccupancyQuery& base,
                                                 const OccupancyDeviceSpec& device,
                                                 std::int64_t step_bytes) {
  if (step_bytes < 1) {
    throw InputError(
        fmt::format("threadgroup-memory sweep step must be at least 1 byte (got {})", step_bytes));
  }
  std::vector<SweepPoint> points;
  const std::int64_t limit = device.limits.max_threadgroup_memory_bytes;
  for (std::int64_t bytes = 0; bytes <= limit; bytes += step_bytes) {
    OccupancyQuery query = base;
    query.threadgroup_memory_bytes = bytes;
    points.push_back(point_of(bytes, evaluate_occupancy(query, device)));
  }
  if (points.empty() || points.back().x != limit) {
    OccupancyQuery query = base;
    query.threadgroup_memory_bytes = limit;
    points.push_back(point_of(limit, evaluate_occupancy(query, device)));
  }
  return points;
}

std::vector<SweepPoint> sweep_registers(const OccupancyQuery& base,
                                        const OccupancyDeviceSpec& device) {
  std::vector<SweepPoint> points;
  for (int regs = 1; regs <= device.limits.max_registers_per_thread; ++regs) {
    OccupancyQuery query = base;
    query.registers_per_thread = regs;
    points.push_back(point_of(regs, evaluate_occupancy(query, device)));
  }
  return points;
}

}  // namespace marlin::analytic
