#include "model/timing/gpu_timing_model.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/common/input_error.h"
#include "model/timing/coalescer.h"
#include "model/timing/core_counters.h"
#include "model/timing/dram_counter.h"
#include "model/timing/launch_replay.h"
#include "model/timing/memory_hierarchy.h"
#include "model/timing/op_costs.h"
#include "model/timing/reuse_distance.h"
#include "model/timing/threadgroup_memory_banks.h"
#include "model/timing/trace_stream.h"

namespace marlin::timing {
namespace {

void check_spec(const model::DeviceSpec& device) {
  const model::GpuSpec& gpu = device.gpu;
  if (gpu.cores < 1 || gpu.schedulers_per_core < 1 || gpu.simd_width < 1 || gpu.clock_hz <= 0) {
    throw InputError("gpu: cores, schedulers_per_core, simd_width and clock_hz must be positive");
  }
  const model::ThreadgroupMemorySpec& tgm = device.threadgroup_memory;
  if (tgm.latency_cycles < 0 || tgm.threadgroup_barrier_cycles < 0 ||
      tgm.simdgroup_barrier_cycles < 0) {
    throw InputError("threadgroup_memory: latency_cycles and barrier cycles must not be negative");
  }
}

double ratio(std::int64_t numerator, double denominator) {
  return denominator > 0 ? static_cast<double>(numerator) / denominator : 0.0;
}

double hit_rate(const std::vector<StatRecord>& records, const std::string& level) {
  std::int64_t hits = 0;
  std::int64_t misses = 0;
  for (const StatRecord& r : records) {
    if (r.name == "memory." + level + ".read_hits") hits = r.value;
    if (r.name == "memory." + level + ".read_misses") misses = r.value;
  }
  return hits + misses > 0 ? static_cast<double>(hits) / static_cast<double>(hits + misses) : 0.0;
}

}  // namespace

GpuTimingModel::GpuTimingModel(const model::DeviceSpec& device, TimingOptions options)
    : device_(device), options_(options) {
  check_spec(device_);
  if (options_.counter_window < Cycles(1)) {
    throw InputError("timing options: counter_window must be at least 1 cycle (got " +
                     std::to_string(options_.counter_window.count()) + ")");
  }
  if (options_.replay_threads < 1) {
    throw InputError("timing options: replay_threads must be at least 1 (got " +
                     std::to_string(options_.replay_threads) + ")");
  }
  if (options_.rebalance_windows < 0) {
    throw InputError("timing options: rebalance_windows must be at least 0 (got " +
                     std::to_string(options_.rebalance_windows) + ")");
  }
  if (!(options_.min_host_share >= 0 && options_.min_host_share <= 1)) {
    throw InputError("timing options: min_host_share must be from 0 to 1 (got " +
                     std::to_string(options_.min_host_share) + ")");
  }
  if (options_.alternate_parallel < 0) {
    throw InputError("timing options: alternate_parallel must be at least 0 (got " +
                     std::to_string(options_.alternate_parallel) + ")");
  }
  OpCosts check_pipes(device_.pipes);  // validates the pipe timings
  (void)check_pipes;
}

TimingResult GpuTimingModel::run(std::span<const LaunchInput> launches,
                                 TimingEventSink* sink) const {
  try {
    return replay(launches, sink);
  } catch (...) {
    for (const LaunchInput& input : launches) {
      if (input.stream != nullptr) input.stream->abort();
    }
    throw;
  }
}

TimingResult GpuTimingModel::replay(std::span<const LaunchInput> launches,
                                    TimingEventSink* sink) const {
  const model::GpuSpec& gpu = device_.gpu;
  const OpCosts costs(device_.pipes);
  MemoryHierarchy memory(device_.memory, gpu);
  std::vector<std::uint64_t> l2_lines;
  if (options_.l2_reuse_distances) memory.record_l2_lines(&l2_lines);
  Coalescer coalescer(device_.memory.l1);
  std::vector<std::unique_ptr<ThreadgroupMemoryBanks>> banks;
  for (int core = 0; core < gpu.cores; ++core) {
    banks.push_back(make_threadgroup_memory_banks(device_.threadgroup_memory));
  }
  CoreCounters counters;
  std::optional<DramCounter> dram_counter;
  if (sink != nullptr) dram_counter.emplace(memory.dram_channel(), options_.counter_window, *sink);
  const ReplayDevice replay_device{.gpu = gpu,
                                   .threadgroup_memory = device_.threadgroup_memory,
                                   .costs = &costs,
                                   .memory = &memory,
                                   .coalescer = &coalescer,
                                   .banks = &banks,
                                   .counters = &counters,
                                   .policy = options_.issue_policy.value_or(gpu.issue_policy),
                                   .sink = sink,
                                   .dram_counter = dram_counter ? &*dram_counter : nullptr,
                                   .batch_alu_runs = options_.batch_alu_runs,
                                   .threads = options_.replay_threads,
                                   .balance = options_.partition_balance,
                                   .rebalance_windows = options_.rebalance_windows,
                                   .parallel_gate = options_.parallel_gate,
                                   .min_host_share = options_.min_host_share,
                                   .alternate_parallel = options_.alternate_parallel,
                                   .threadgroups_ended = options_.threadgroups_ended};
  const Cycles dispatch_overhead =
      cycles_ceil_from_seconds(device_.dispatch.dispatch_overhead_s, gpu);
  const Cycles command_buffer_overhead =
      cycles_ceil_from_seconds(device_.dispatch.command_buffer_overhead_s, gpu);

  TimingResult result;
  double flops = 0;
  double weighted_occupancy = 0;
  std::int64_t exec_cycles = 0;
  Cycles now(0);
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const LaunchInput& input = launches[i];
    if ((input.trace == nullptr) == (input.stream == nullptr)) {
      throw InputError("launch " + std::to_string(i) +
                       ": needs exactly one of a trace and a trace stream");
    }
    const Cycles overhead =
        dispatch_overhead + (input.new_command_buffer ? command_buffer_overhead : Cycles(0));
    const std::int64_t dram_before = memory.dram().stats().value("bytes");
    const std::int64_t instructions_before = counters.registry.value(counters.instructions);
    LaunchReplay replay(replay_device, input, static_cast<int>(i), now, overhead);
    LaunchResult launch = replay.run();
    result.parallel_windows += replay.parallel_windows();
    result.partition_moves += replay.partition_moves();
    result.parallel_stops += replay.parallel_stops();
    launch.dram_bytes = memory.dram().stats().value("bytes") - dram_before;
    launch.instructions = counters.registry.value(counters.instructions) - instructions_before;
    now += launch.cycles;
    flops += input.useful_flops;
    const std::int64_t exec = (launch.cycles - launch.overhead).count();
    weighted_occupancy += launch.achieved_simdgroups_per_core * static_cast<double>(exec);
    exec_cycles += exec;
    result.breakdown += launch.breakdown;
    result.instructions += launch.instructions;
    result.launches.push_back(std::move(launch));
  }
  result.total_cycles = now;
  if (dram_counter) dram_counter->finish(now);
  result.seconds = to_seconds(now, gpu);
  const std::int64_t dram_bytes = memory.dram().stats().value("bytes");
  result.achieved_flops_per_s = result.seconds > 0 ? flops / result.seconds : 0.0;
  result.dram_bytes_per_s =
      result.seconds > 0 ? static_cast<double>(dram_bytes) / result.seconds : 0.0;
  result.achieved_simdgroups_per_core =
      exec_cycles > 0 ? weighted_occupancy / static_cast<double>(exec_cycles) : 0.0;

  // Utilizations over the whole run.
  const auto cycles = static_cast<double>(now.count());
  const double scheduler_cycles = cycles * gpu.cores * gpu.schedulers_per_core;
  std::int64_t tgm_busy = 0;
  for (const auto& b : banks) tgm_busy += b->stats().value("busy_cycles");
  double link = 0;
  double l1 = 0;
  for (int core = 0; core < gpu.cores; ++core) {
    link += memory.link(core).utilization(now);
    l1 += memory.l1_port_utilization(core, now);
  }
  result.utilization = UnitUtilization{
      .alu = ratio(counters.registry.value(counters.alu_instructions), scheduler_cycles),
      .matrix = ratio(counters.registry.value(counters.matrix_pipe_cycles), scheduler_cycles),
      .threadgroup_memory = ratio(tgm_busy, cycles * gpu.cores),
      .l1 = now.count() > 0 ? l1 / gpu.cores : 0.0,
      .core_link = now.count() > 0 ? link / gpu.cores : 0.0,
      .l2 = now.count() > 0 ? memory.l2_port_utilization(now) : 0.0,
      .dram = now.count() > 0 ? memory.dram().utilization(now) : 0.0};

  // Counters for writers.
  counters.registry.append_records("core.", result.stats);
  StatRegistry tgm_total = banks.front()->stats();
  for (std::size_t core = 1; core < banks.size(); ++core)
    tgm_total.accumulate(banks[core]->stats());
  tgm_total.append_records("threadgroup_memory.", result.stats);
  coalescer.stats().append_records("coalescer.", result.stats);
  memory.append_records("memory.", result.stats);
  result.hit_rates = HitRates{.l1 = hit_rate(result.stats, "l1"),
                              .l2 = hit_rate(result.stats, "l2"),
                              .slc = hit_rate(result.stats, "slc")};
  if (options_.l2_reuse_distances) result.l2_reuse = reuse_distances(l2_lines);
  return result;
}

}  // namespace marlin::timing
