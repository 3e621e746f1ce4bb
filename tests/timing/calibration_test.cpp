// Calibration self-test: the microbenchmarks of kernels/calibration/ measure, on the simulated
// device, the parameters of every shipped profile within 5% (docs/calibration.md).
#include "kernels/calibration/calibration.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/calibration/calibration_launch.h"
#include "kernels/calibration/calibration_params.h"
#include "kernels/calibration/threadgroup_bank_expectation.h"
#include "model/device/profile_loader.h"

namespace marlin::calibration {
namespace {

constexpr double kTolerance = 0.05;

class CalibrationSelfTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CalibrationSelfTest, MeasuresEveryParameterWithinFivePercent) {
  const model::DeviceSpec device = model::load_device(GetParam());
  const std::vector<CalibrationResult> results = run_calibration(device);
  // 3 ALU classes x 2 (latency, throughput), 7 more ALU classes' throughput, shuffle and
  // reduction x 2, 2 matmul types x 2, threadgroup memory x 5, DRAM x 2, dispatch x 2.
  ASSERT_EQ(results.size(), 30U);
  for (const CalibrationResult& r : results) {
    std::cout << fmt::format("{:8} {:48} profile {:>12.6g} measured {:>12.6g} {:>7.3f}% {}\n",
                             device.name, r.name, r.profile_value, r.measured_value,
                             100 * r.relative_error, r.measurable ? "" : "(not measurable)");
    // Every parameter of the shipped profiles is measurable (docs/calibration.md).
    EXPECT_TRUE(r.measurable) << device.name << " " << r.name << ": " << r.note;
    EXPECT_LE(r.relative_error, kTolerance) << device.name << " " << r.name;
    if (r.name == "threadgroup_memory.bytes_per_cycle") {
      // Idle pipe cycles only lose bandwidth: the pipe never exceeds the profile's rate.
      EXPECT_LE(r.measured_value, r.profile_value) << device.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ShippedProfiles, CalibrationSelfTest,
                         ::testing::ValuesIn(model::list_devices()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

// The bank-conflict reference, checked by hand against the classic rule's table
// (docs/timing-model.md): 32 lanes x 4 bytes, 32 banks of 4 bytes.
TEST(ThreadgroupBankExpectation, ClassicRuleByHand) {
  model::ThreadgroupMemorySpec spec;
  spec.banks = 32;
  spec.bank_width_bytes = 4;
  spec.bytes_per_cycle = 128;
  EXPECT_EQ(expected_access_cycles(spec, 1), 1);    // one word per bank
  EXPECT_EQ(expected_access_cycles(spec, 2), 2);    // lanes i and i + 16 share bank 2i
  EXPECT_EQ(expected_access_cycles(spec, 3), 1);    // odd strides visit every bank once
  EXPECT_EQ(expected_access_cycles(spec, 32), 32);  // all lanes in bank 0
  spec.bytes_per_cycle = 64;                        // 128 bytes take 2 cycles of data path
  EXPECT_EQ(expected_access_cycles(spec, 1), 2);
  EXPECT_EQ(expected_access_cycles(spec, 2), 2);
  EXPECT_EQ(expected_access_cycles(spec, 32), 32);
  spec.bank_width_bytes = 8;  // 16 banks... of 8-byte words: stride 1 puts 2 lanes per word
  spec.banks = 16;
  spec.bytes_per_cycle = 128;
  EXPECT_EQ(expected_access_cycles(spec, 1), 1);  // words 0..15, one per bank (broadcast pairs)
  EXPECT_EQ(expected_access_cycles(spec, 2), 2);  // words 0..31: two per bank
}

// An empty kernel takes exactly the dispatch overhead, converted to cycles by hand: m1 runs at
// 1,278 MHz, 2 us of dispatch = 2,556 cycles; a new command buffer adds 10 us = 12,780 cycles.
// One simdgroup issuing N dependent and N independent FMAs, through the engine and the timing
// model, exactly. With the m4max profile (FP32 FMA throughput 1, latency 6; integer add and
// compare throughput 1), each repetition of calib_fp32_fma_dependent adds one chain of 256 FMAs:
// 256 x 6 = 1536 cycles. calib_fp32_fma_independent runs eight chains of 32 per repetition
// (32 x 6 = 192 cycles, less than its issue), so a repetition adds its 256 issue cycles plus the
// loop's increment and compare: 258.
TEST(CalibrationLaunch, DependentAndIndependentFmasCostExactCycles) {
  const model::DeviceSpec m4max = model::load_device("m4max");
  ASSERT_EQ(m4max.pipes.fp32_fma.throughput_cycles, 1);
  ASSERT_EQ(m4max.pipes.fp32_fma.latency_cycles, 6);
  ASSERT_EQ(m4max.pipes.int_add.throughput_cycles, 1);
  ASSERT_EQ(m4max.pipes.fp_cmp_select.throughput_cycles, 1);
  const auto cycles = [&](const char* kernel, std::uint32_t reps) {
    std::vector<float> out(32);
    CalibParams params{reps, 0, 1.0F, -12345.0F};
    CalibLaunch launch{kernel, {1, 1, 1}, {32, 1, 1}, {}, false};
    launch.buffers[0] = {out.data(), out.size() * sizeof(float)};
    launch.buffers[1] = {&params, sizeof(params)};
    return launch_cycles(m4max, launch);
  };
  EXPECT_EQ(cycles("calib_fp32_fma_dependent", 16) - cycles("calib_fp32_fma_dependent", 8),
            8 * 256 * 6);
  EXPECT_EQ(cycles("calib_fp32_fma_independent", 16) - cycles("calib_fp32_fma_independent", 8),
            8 * (256 + 2));
}

TEST(CalibrationLaunch, EmptyKernelCostsExactlyTheOverheads) {
  const model::DeviceSpec m1 = model::load_device("m1");
  CalibLaunch launch{"calib_empty", {1, 1, 1}, {32, 1, 1}, {}, false};
  EXPECT_EQ(launch_cycles(m1, launch), 2556);
  launch.new_command_buffer = true;
  EXPECT_EQ(launch_cycles(m1, launch), 2556 + 12780);
}

// A dependent multiply waits for the previous one: 32 per repetition at m1's 34-cycle latency,
// 8 more repetitions add exactly 8 x 32 x 34 = 8,704 cycles.
TEST(CalibrationLaunch, DependentMultipliesAddTheirLatencyExactly) {
  const model::DeviceSpec m1 = model::load_device("m1");
  std::vector<float> out(256);
  CalibParams params{8, 0, 1.0F, -12345.0F};
  CalibLaunch launch{
      "calib_matmul_f16_dependent",
      {1, 1, 1},
      {32, 1, 1},
      {{0, {out.data(), out.size() * sizeof(float)}}, {1, {&params, sizeof(params)}}},
      false};
  const std::int64_t eight = launch_cycles(m1, launch);
  params.reps = 16;
  EXPECT_EQ(launch_cycles(m1, launch) - eight, 8704);
}

}  // namespace
}  // namespace marlin::calibration
