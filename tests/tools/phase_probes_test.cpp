// Phase probes (tools/cli/phase_probes.h): the barrier and pure-ALU probes measure exactly what
// the profile's parameters say, computed here by hand; the barrier probes follow the profile
// when its barrier costs change.
#include "tools/cli/phase_probes.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/calibration/calibration_params.h"
#include "model/device/profile_loader.h"
#include "sim/runtime/lane_context.h"
#include "sim/runtime/launch.h"

namespace marlin::cli {
namespace {

constexpr std::int64_t kDeltaReps = kProbeRepsHigh - kProbeRepsLow;  // 4

// Per repetition the barrier probes also run their loop's increment and compare: 2 ALU
// instructions of 1 issue cycle each (int_add and compare throughput 1 on every profile).
constexpr std::int64_t kLoopInstructions = 2;

TEST(PhaseProbesTest, ThreadgroupBarrierCostsTheProfilesBarrier) {
  model::DeviceSpec device = model::load_device("m4max");
  // m4max: 32 cycles. 64 barriers of 4 simdgroups release 32 cycles after the last arrival, so
  // the next one issues 32 cycles later: 4 x (64 x 32 + 2) = 8200 cycles more at R = 8.
  ASSERT_EQ(device.threadgroup_memory.threadgroup_barrier_cycles, 32);
  ProbeTiming t = time_probe(device, "probe_threadgroup_barrier", kProbeThreads, 64);
  EXPECT_EQ(t.high - t.low, kDeltaReps * (64 * 32 + kLoopInstructions));
  EXPECT_DOUBLE_EQ(t.cycles(), (64.0 * 32 + 2) / 64);  // 32.03125
  // The claim's 20 cycles as a profile: 4 x (64 x 20 + 2) = 5128.
  device.threadgroup_memory.threadgroup_barrier_cycles = 20;
  t = time_probe(device, "probe_threadgroup_barrier", kProbeThreads, 64);
  EXPECT_EQ(t.high - t.low, kDeltaReps * (64 * 20 + kLoopInstructions));
}

TEST(PhaseProbesTest, SimdgroupBarrierCostsTheProfilesBarrier) {
  model::DeviceSpec device = model::load_device("m4max");
  // The next op issues max(1, 4) cycles after a simdgroup barrier: 4 x (64 x 4 + 2) = 1032.
  ASSERT_EQ(device.threadgroup_memory.simdgroup_barrier_cycles, 4);
  ProbeTiming t = time_probe(device, "probe_simdgroup_barrier", kProbeThreads, 64);
  EXPECT_EQ(t.high - t.low, kDeltaReps * (64 * 4 + kLoopInstructions));
  // 7 cycles: 4 x (64 x 7 + 2) = 1800.
  device.threadgroup_memory.simdgroup_barrier_cycles = 7;
  t = time_probe(device, "probe_simdgroup_barrier", kProbeThreads, 64);
  EXPECT_EQ(t.high - t.low, kDeltaReps * (64 * 7 + kLoopInstructions));
}

// Lane ALU instructions per kind the engine executes in probe_dequant_word at `reps` (one
// simdgroup).
std::vector<std::uint64_t> dequant_word_lane_ops(std::uint32_t reps) {
  std::vector<float> out(32);
  CalibParams params{reps, 0, 1.0F, -12345.0F};
  sim::LaunchSpec spec;
  spec.kernel = "probe_dequant_word";
  spec.threadgroups = {1, 1, 1};
  spec.threads_per_threadgroup = {32, 1, 1};
  spec.buffers = {{3, {out.data(), out.size() * sizeof(float)}}, {5, {&params, sizeof(params)}}};
  spec.limits = {1024, 32768};
  spec.options.trace = false;
  const sim::LaunchResult r = sim::launch(spec);
  return {r.stats.alu_lane_ops.begin(), r.stats.alu_lane_ops.end()};
}

// Issue cycles of one instruction of each ALU kind: its pipe's throughput (the table of
// docs/timing-model.md, "Pipes").
int throughput_of(sim::AluKind kind, const model::PipeSpec& pipes) {
  switch (kind) {
    case sim::AluKind::kFp16Fma:
    case sim::AluKind::kFp16Add:
    case sim::AluKind::kFp16Mul:
      return pipes.fp16_fma.throughput_cycles;
    case sim::AluKind::kFp32Fma:
    case sim::AluKind::kFp32Mul:
      return pipes.fp32_fma.throughput_cycles;
    case sim::AluKind::kFp32Add:
      return pipes.fp32_add.throughput_cycles;
    case sim::AluKind::kIntAdd:
    case sim::AluKind::kIntLogic:
    case sim::AluKind::kIntShift:
      return pipes.int_add.throughput_cycles;
    case sim::AluKind::kIntMul:
      return pipes.int_mul.throughput_cycles;
    case sim::AluKind::kCompareSelect:
      return pipes.fp_cmp_select.throughput_cycles;
    case sim::AluKind::kConvert:
      return pipes.convert.throughput_cycles;
    case sim::AluKind::kReciprocal:
      return pipes.reciprocal.throughput_cycles;
    case sim::AluKind::kRsqrt:
      return pipes.rsqrt.throughput_cycles;
    case sim::AluKind::kSpecial:
    case sim::AluKind::kCount:
      break;
  }
  return pipes.exp2_log2.throughput_cycles;
}

TEST(PhaseProbesTest, DequantWordIsItsInstructionsTimesTheirThroughput) {
  const model::DeviceSpec device = model::load_device("m4max");
  const std::vector<std::uint64_t> low = dequant_word_lane_ops(kProbeRepsLow);
  const std::vector<std::uint64_t> high = dequant_word_lane_ops(kProbeRepsHigh);
  // One simdgroup alone, no loads: each added instruction holds the issue for its pipe's
  // throughput (m4max: 1 cycle, int_mul 4 cycles).
  std::int64_t expected = 0;
  std::int64_t instructions = 0;
  for (std::size_t k = 0; k < low.size(); ++k) {
    ASSERT_EQ((high[k] - low[k]) % 32, 0U) << "kind " << k;
    const auto added = static_cast<std::int64_t>((high[k] - low[k]) / 32);
    instructions += added;
    expected += added * throughput_of(static_cast<sim::AluKind>(k), device.pipes);
  }
  // Dequantizing 8 codes takes tens of instructions per word, not the claimed ~2.
  EXPECT_GT(instructions, kDeltaReps * 8 * 8);
  const ProbeTiming t = time_probe(device, "probe_dequant_word", 32);
  EXPECT_EQ(t.high - t.low, expected);
}

TEST(PhaseProbesTest, CycleFormula) {
  ProbeTiming t;
  t.low = 1000;
  t.high = 9200;
  t.phases_per_rep = 64;
  EXPECT_DOUBLE_EQ(t.cycles(), 8200.0 / (4 * 64));
}

}  // namespace
}  // namespace marlin::cli
