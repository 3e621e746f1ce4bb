#include "kernels/calibration/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/calibration/calibration_launch.h"
#include "kernels/calibration/threadgroup_bank_expectation.h"

namespace marlin::calibration {
namespace {

// Repetition counts of the two launches whose difference gives each slope.
constexpr std::uint32_t kRepsLow = 8;
constexpr std::uint32_t kRepsHigh = 16;
// Operations per repetition of the unrolled bodies (kernels/calibration/*.metal).
constexpr double kAluOpsPerRep = 256;
constexpr double kMatmulsPerRep = 32;
constexpr double kTgLoadsPerRep = 32;
// 32 simdgroups share one core's pipe, granted round robin among the schedulers, so the pipe
// stays busy while any simdgroup has a load ready (docs/timing-model.md).
constexpr std::uint32_t kTgThreads = 1024;
constexpr double kBarriersPerRep = 64;
constexpr std::uint32_t kBarrierThreads = 64;
// DRAM stream: float4 loads per thread and threads per threadgroup.
constexpr std::uint32_t kStreamLoadsPerThread = 8;
constexpr std::uint32_t kStreamThreads = 256;
constexpr std::uint32_t kStreamThreadsLow = 32 * 1024;  // 4 MiB read
constexpr std::uint32_t kStreamThreadsHigh = 64 * 1024;
// Pointer chase: hops of the two launches and the distance between consecutive links.
constexpr std::uint32_t kChaseHopsLow = 16;
constexpr std::uint32_t kChaseHopsHigh = 48;
constexpr std::uint32_t kChaseStrideWords = 1024 + 32;  // 4224 bytes: a new line every hop

// Repetitions 1, seed 1 and a sentinel that no chain of the kernels reaches.
CalibParams default_params() { return CalibParams{1, 0, 1.0F, -12345.0F}; }

CalibrationResult compare(std::string name, std::string unit, double profile, double measured) {
  CalibrationResult r{std::move(name), std::move(unit), profile, measured, 0.0, true, {}};
  r.relative_error = std::abs(measured - profile) / std::abs(profile);
  return r;
}

CalibrationResult unmeasurable(CalibrationResult r, std::string why) {
  r.measurable = false;
  r.note = std::move(why);
  return r;
}

// Cycles added per repetition: (T(kRepsHigh) - T(kRepsLow)) / (kRepsHigh - kRepsLow), with
// the kernel's params at buffer `params_index` and a result buffer at index 0 (four words per
// thread, plus the four 8x8 float matrices the matrix kernels store).
double cycles_per_rep(const model::DeviceSpec& device, CalibLaunch launch,
                      std::uint32_t params_index) {
  std::vector<float> out(
      launch.threadgroups.volume() * launch.threads_per_threadgroup.volume() * 4 + 4 * 64);
  CalibParams params = default_params();
  launch.buffers[0] = {out.data(), out.size() * sizeof(float)};
  launch.buffers[params_index] = {&params, sizeof(params)};
  params.reps = kRepsLow;
  const std::int64_t low = launch_cycles(device, launch);
  params.reps = kRepsHigh;
  const std::int64_t high = launch_cycles(device, launch);
  return static_cast<double>(high - low) / (kRepsHigh - kRepsLow);
}

CalibLaunch one_threadgroup(const std::string& kernel, std::uint32_t threads) {
  return CalibLaunch{kernel, {1, 1, 1}, {threads, 1, 1}, {}, false};
}

// Throughput of an op class from its eight-chain kernel calib_<op>_independent.
void throughput(const model::DeviceSpec& device, const std::string& op,
                const model::OpTiming& timing, std::vector<CalibrationResult>& out) {
  const double measured =
      cycles_per_rep(device, one_threadgroup("calib_" + op + "_independent", 32), 1) /
      kAluOpsPerRep;
  out.push_back(compare(op + ".throughput", "cycles", timing.throughput_cycles, measured));
}

// Latency (one dependent chain, calib_<op>_dependent) and throughput of one op class.
void latency_and_throughput(const model::DeviceSpec& device, const std::string& op,
                            const model::OpTiming& timing, std::vector<CalibrationResult>& out) {
  const double dependent =
      cycles_per_rep(device, one_threadgroup("calib_" + op + "_dependent", 32), 1) / kAluOpsPerRep;
  out.push_back(compare(op + ".latency", "cycles", timing.latency_cycles, dependent));
  throughput(device, op, timing, out);
}

// Latency (one accumulator) and throughput (four) of the 8x8x8 multiply, `type` f16 or f32.
void matmul(const model::DeviceSpec& device, const std::string& type, const model::OpTiming& timing,
            std::vector<CalibrationResult>& out) {
  const std::string kernel = "calib_matmul_" + type;
  const double dependent =
      cycles_per_rep(device, one_threadgroup(kernel + "_dependent", 32), 1) / kMatmulsPerRep;
  const double independent =
      cycles_per_rep(device, one_threadgroup(kernel + "_independent", 32), 1) / kMatmulsPerRep;
  out.push_back(compare("matmul_" + type + ".latency", "cycles", timing.latency_cycles, dependent));
  out.push_back(
      compare("matmul_" + type + ".throughput", "cycles", timing.throughput_cycles, independent));
}

// Pipe cycles per simdgroup access of the stride-S threadgroup load benchmark, launched with
// `threads` threads (one threadgroup, one core).
double tg_access_cycles(const model::DeviceSpec& device, int stride, std::uint32_t threads) {
  const std::string kernel = "calib_tg_load_stride" + std::to_string(stride);
  return cycles_per_rep(device, one_threadgroup(kernel, threads), 1) /
         (kTgLoadsPerRep * threads / 32.0);
}

void threadgroup_memory(const model::DeviceSpec& device, std::vector<CalibrationResult>& out) {
  const model::ThreadgroupMemorySpec& tg = device.threadgroup_memory;
  constexpr double kAccessBytes = 32 * 4;
  const double stride1 = tg_access_cycles(device, 1, kTgThreads);
  CalibrationResult bandwidth = compare("threadgroup_memory.bytes_per_cycle", "B/cycle",
                                        tg.bytes_per_cycle, kAccessBytes / stride1);
  if (expected_access_cycles(tg, 1) * tg.bytes_per_cycle != kAccessBytes) {
    bandwidth = unmeasurable(
        bandwidth,
        "a 32-lane access of 4-byte words moves 128 bytes in a whole number of cycles, at least "
        "one; bytes_per_cycle shows only when it divides 128");
  }
  out.push_back(bandwidth);
  // Conflict penalties from one simdgroup: the per-repetition cost outside the loads (latency
  // of the last load, the sums, loop control) is the same for every stride and cancels.
  const double one_sg_stride1 = tg_access_cycles(device, 1, 32);
  const int expected1 = expected_access_cycles(tg, 1);
  for (int stride : {2, 32}) {
    const double penalty = tg_access_cycles(device, stride, 32) - one_sg_stride1;
    const double profile = expected_access_cycles(tg, stride) - expected1;
    CalibrationResult r = compare(fmt_stride_name(stride), "cycles", profile, penalty);
    // A penalty the data path hides is 0: compare it with a 1-cycle scale instead.
    r.relative_error = std::abs(penalty - profile) / std::max(profile, 1.0);
    out.push_back(r);
  }
  const double barrier =
      cycles_per_rep(device, one_threadgroup("calib_threadgroup_barrier", kBarrierThreads), 1) /
      kBarriersPerRep;
  out.push_back(compare("threadgroup_memory.threadgroup_barrier_cycles", "cycles",
                        std::max(tg.threadgroup_barrier_cycles, 1), barrier));
  const double simd_barrier =
      cycles_per_rep(device, one_threadgroup("calib_simdgroup_barrier", 32), 1) / kBarriersPerRep;
  out.push_back(compare("threadgroup_memory.simdgroup_barrier_cycles", "cycles",
                        std::max(tg.simdgroup_barrier_cycles, 1), simd_barrier));
}

void dram_bandwidth(const model::DeviceSpec& device, std::vector<CalibrationResult>& out) {
  std::vector<float> src(std::size_t{kStreamThreadsHigh} * kStreamLoadsPerThread * 4, 1.0F);
  std::vector<float> result(std::size_t{kStreamThreadsHigh} * 4);
  CalibParams params = default_params();
  auto cycles = [&](std::uint32_t threads) {
    params.stride = threads;
    CalibLaunch launch{"calib_dram_stream",
                       {threads / kStreamThreads, 1, 1},
                       {kStreamThreads, 1, 1},
                       {{0, {src.data(), src.size() * sizeof(float)}},
                        {1, {result.data(), result.size() * sizeof(float)}},
                        {2, {&params, sizeof(params)}}},
                       false};
    return launch_cycles(device, launch);
  };
  const std::int64_t low = cycles(kStreamThreadsLow);
  const std::int64_t high = cycles(kStreamThreadsHigh);
  const double bytes = 16.0 * kStreamLoadsPerThread * (kStreamThreadsHigh - kStreamThreadsLow);
  const double seconds = static_cast<double>(high - low) / device.gpu.clock_hz;
  out.push_back(compare("memory.dram_bandwidth_bytes_per_s", "B/s",
                        device.memory.dram_bandwidth_bytes_per_s, bytes / seconds));
}

void dram_latency(const model::DeviceSpec& device, std::vector<CalibrationResult>& out) {
  // Link h sits at word h * stride and points to link h + 1: every hop opens a new line.
  std::vector<std::uint32_t> chain(std::size_t{kChaseHopsHigh + 1} * kChaseStrideWords, 0);
  for (std::uint32_t h = 0; h < kChaseHopsHigh; ++h) {
    chain[std::size_t{h} * kChaseStrideWords] = (h + 1) * kChaseStrideWords;
  }
  std::vector<std::uint32_t> result(1);
  CalibParams params = default_params();
  auto cycles = [&](std::uint32_t hops) {
    params.reps = hops;
    CalibLaunch launch{"calib_pointer_chase",
                       {1, 1, 1},
                       {1, 1, 1},
                       {{0, {chain.data(), chain.size() * sizeof(std::uint32_t)}},
                        {1, {result.data(), sizeof(std::uint32_t)}},
                        {2, {&params, sizeof(params)}}},
                       false};
    return launch_cycles(device, launch);
  };
  const double per_hop = static_cast<double>(cycles(kChaseHopsHigh) - cycles(kChaseHopsLow)) /
                         (kChaseHopsHigh - kChaseHopsLow);
  out.push_back(
      compare("memory.dram_latency_cycles", "cycles", device.memory.dram_latency_cycles, per_hop));
}

void dispatch(const model::DeviceSpec& device, std::vector<CalibrationResult>& out) {
  CalibLaunch launch = one_threadgroup("calib_empty", 32);
  const std::int64_t plain = launch_cycles(device, launch);
  launch.new_command_buffer = true;
  const std::int64_t with_buffer = launch_cycles(device, launch);
  out.push_back(compare("dispatch.dispatch_overhead_s", "s", device.dispatch.dispatch_overhead_s,
                        static_cast<double>(plain) / device.gpu.clock_hz));
  out.push_back(compare("dispatch.command_buffer_overhead_s", "s",
                        device.dispatch.command_buffer_overhead_s,
                        static_cast<double>(with_buffer - plain) / device.gpu.clock_hz));
}

}  // namespace

std::vector<CalibrationResult> run_calibration(const model::DeviceSpec& device) {
  std::vector<CalibrationResult> results;
  latency_and_throughput(device, "fp32_fma", device.pipes.fp32_fma, results);
  latency_and_throughput(device, "fp16_fma", device.pipes.fp16_fma, results);
  latency_and_throughput(device, "int_add", device.pipes.int_add, results);
  const model::PipeSpec& pipes = device.pipes;
  throughput(device, "fp32_add", pipes.fp32_add, results);
  throughput(device, "int_mul", pipes.int_mul, results);
  throughput(device, "fp_cmp_select", pipes.fp_cmp_select, results);
  throughput(device, "convert", pipes.convert, results);
  throughput(device, "exp2_log2", pipes.exp2_log2, results);
  throughput(device, "reciprocal", pipes.reciprocal, results);
  throughput(device, "rsqrt", pipes.rsqrt, results);
  latency_and_throughput(device, "shuffle", pipes.shuffle, results);
  latency_and_throughput(device, "simd_reduce", pipes.simd_reduce, results);
  matmul(device, "f16", device.pipes.matmul_f16, results);
  matmul(device, "f32", device.pipes.matmul_f32, results);
  threadgroup_memory(device, results);
  dram_bandwidth(device, results);
  dram_latency(device, results);
  dispatch(device, results);
  return results;
}

}  // namespace marlin::calibration
