// Test fixtures for the core timing model: a small device with round numbers, builders for
// synthetic traces, and a sink that records every event.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/device/device_spec.h"
#include "model/timing/gpu_timing_model.h"
#include "model/timing/timing_event_sink.h"
#include "sim/runtime/trace.h"

namespace marlin::timing::testing {

// 2 cores at 1 GHz, 4 schedulers. FP32 FMA: 2 cycles throughput, 6 latency. FP16 FMA: 1 / 4.
// Matrix multiply (half): 17 / 34 as measured on M1-class cores; float: 18 / 36.
// Threadgroup memory: 32 banks of 4 bytes, 128 bytes per cycle, 10 cycles latency;
// threadgroup barrier 5 cycles, simdgroup barrier 2 cycles.
// Memory: 128-byte lines; L1 1 KiB (20 cycles), L2 4 KiB (50), SLC 8 KiB (100), fully
// associative; core link 1024 B/cycle; DRAM 32 GB/s = 32 B/cycle, 100 cycles latency.
inline model::DeviceSpec test_device() {
  model::DeviceSpec d;
  d.name = "test";
  d.gpu = {.family = model::GpuFamily::kApple7,
           .cores = 2,
           .clock_hz = 1e9,
           .simd_width = 32,
           .schedulers_per_core = 4,
           .alu_lanes_per_core = 128};
  d.pipes.fp16_fma = {1, 4};
  d.pipes.fp32_fma = {2, 6};
  d.pipes.fp32_add = {2, 6};
  d.pipes.int_add = {1, 3};
  d.pipes.int_mul = {4, 8};
  d.pipes.fp_cmp_select = {1, 5};
  d.pipes.convert = {2, 4};
  d.pipes.exp2_log2 = {4, 8};
  d.pipes.reciprocal = {6, 10};
  d.pipes.rsqrt = {8, 12};
  d.pipes.shuffle = {2, 5};
  d.pipes.simd_reduce = {14, 28};
  d.pipes.matmul_f16 = {17, 34};
  d.pipes.matmul_f32 = {18, 36};
  d.threadgroup_memory = {.banks = 32,
                          .bank_width_bytes = 4,
                          .bank_rule = model::BankRule::kClassic,
                          .bytes_per_cycle = 128,
                          .latency_cycles = 10,
                          .threadgroup_barrier_cycles = 5,
                          .simdgroup_barrier_cycles = 2};
  d.memory = {
      .l1 = {.size_bytes = 1024, .line_bytes = 128, .associativity = 0, .hit_latency_cycles = 20},
      .l2 = {.size_bytes = 4096, .line_bytes = 128, .associativity = 0, .hit_latency_cycles = 50},
      .slc = {.size_bytes = 8192, .line_bytes = 128, .associativity = 0, .hit_latency_cycles = 100},
      .core_to_l2_bytes_per_cycle = 1024,
      .dram_bandwidth_bytes_per_s = 32e9,
      .dram_latency_cycles = 100};
  d.dispatch = {.dispatch_overhead_s = 0, .command_buffer_overhead_s = 0};
  return d;
}

inline sim::TraceOp alu_op(sim::AluKind kind, std::uint16_t count, std::int32_t dep = -1) {
  return sim::TraceOp{.op = sim::OpClass::kAlu,
                      .kind = static_cast<std::uint8_t>(kind),
                      .count = count,
                      .mask = 0xFFFFFFFFu,
                      .dep = dep,
                      .first_access = 0};
}

inline sim::TraceOp simple_op(sim::OpClass op, std::int32_t dep = -1, std::uint8_t kind = 0) {
  return sim::TraceOp{
      .op = op, .kind = kind, .count = 0, .mask = 0xFFFFFFFFu, .dep = dep, .first_access = 0};
}

// Appends a memory op whose 32 lanes access `bytes` bytes at offset base + lane * stride_bytes.
inline void add_memory_op(sim::SimdgroupTrace& sg, sim::OpClass op, std::uint16_t buffer,
                          std::uint32_t base, std::uint32_t stride_bytes, std::uint8_t bytes,
                          std::int32_t dep = -1, std::uint8_t kind = 0) {
  const auto first = static_cast<std::uint32_t>(sg.accesses.size());
  for (std::uint8_t lane = 0; lane < 32; ++lane) {
    sg.accesses.push_back(sim::MemAccess{base + lane * stride_bytes, buffer, bytes, lane});
  }
  sg.ops.push_back(sim::TraceOp{
      .op = op, .kind = kind, .count = 32, .mask = 0xFFFFFFFFu, .dep = dep, .first_access = first});
}

// A launch of gx threadgroups (1D) of `threads` threads with no simdgroup traces yet.
inline sim::LaunchTrace launch_of(std::uint32_t gx, std::uint32_t threads) {
  sim::LaunchTrace t;
  t.kernel = "synthetic";
  t.threadgroups_per_grid = {gx, 1, 1};
  t.threads_per_threadgroup = {threads, 1, 1};
  return t;
}

inline sim::SimdgroupTrace& add_simdgroup(sim::LaunchTrace& launch, std::uint32_t tg,
                                          std::uint32_t simdgroup) {
  sim::SimdgroupTrace sg;
  sg.threadgroup = {tg, 0, 0};
  sg.simdgroup = simdgroup;
  launch.simdgroups.push_back(std::move(sg));
  return launch.simdgroups.back();
}

struct StateInterval {
  int core = 0;
  int slot = 0;
  StallClass state = StallClass::kIdle;
  std::int64_t begin = 0;
  std::int64_t end = 0;
  friend bool operator==(const StateInterval&, const StateInterval&) = default;
};

struct ThreadgroupRecord {
  int launch = 0;
  int core = 0;
  int slot = 0;
  std::uint32_t threadgroup = 0;
  std::int64_t begin = 0;
  std::int64_t end = 0;
  friend bool operator==(const ThreadgroupRecord&, const ThreadgroupRecord&) = default;
};

struct CounterSample {
  TimingCounter counter = TimingCounter::kResidentSimdgroups;
  int core = 0;
  std::int64_t at = 0;
  std::int64_t value = 0;
};

class RecordingSink final : public TimingEventSink {
 public:
  void on_launch(int launch, std::string_view kernel, Cycles begin, Cycles end) override {
    launches.push_back({launch, std::string(kernel), begin.count(), end.count()});
  }
  void on_threadgroup(int launch, int core, int slot, std::uint32_t threadgroup, Cycles begin,
                      Cycles end) override {
    threadgroups.push_back({launch, core, slot, threadgroup, begin.count(), end.count()});
  }
  void on_simdgroup_state(int core, int slot, StallClass state, Cycles begin, Cycles end) override {
    states.push_back({core, slot, state, begin.count(), end.count()});
  }
  void on_counter(TimingCounter counter, int core, Cycles at, std::int64_t value) override {
    counters.push_back({counter, core, at.count(), value});
  }

  // States of one (core, slot) in time order.
  [[nodiscard]] std::vector<StateInterval> states_of(int core, int slot) const {
    std::vector<StateInterval> out;
    for (const StateInterval& s : states) {
      if (s.core == core && s.slot == slot) out.push_back(s);
    }
    return out;
  }

  struct LaunchRecord {
    int launch = 0;
    std::string kernel;
    std::int64_t begin = 0;
    std::int64_t end = 0;
  };
  std::vector<LaunchRecord> launches;
  std::vector<ThreadgroupRecord> threadgroups;
  std::vector<StateInterval> states;
  std::vector<CounterSample> counters;
};

inline LaunchInput input_of(const sim::LaunchTrace& trace, int resident = 1) {
  return LaunchInput{.trace = &trace, .resident_threadgroups_per_core = resident};
}

}  // namespace marlin::timing::testing
