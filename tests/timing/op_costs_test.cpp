// OpCosts: trace ops to pipes, timings and wait classes (docs/timing-model.md, "Pipes").
#include "model/timing/op_costs.h"

#include <gtest/gtest.h>

#include "model/common/input_error.h"
#include "tests/timing/timing_fixtures.h"

namespace marlin::timing {
namespace {

using sim::AluKind;
using sim::OpClass;

void expect_cost(const OpCost& cost, Pipe pipe, std::int64_t throughput, std::int64_t latency) {
  EXPECT_EQ(cost.pipe, pipe);
  EXPECT_EQ(cost.throughput, Cycles(throughput));
  EXPECT_EQ(cost.latency, Cycles(latency));
}

std::uint8_t kind(AluKind k) { return static_cast<std::uint8_t>(k); }

TEST(OpCostsTest, AluKindsMapToProfileTimings) {
  const OpCosts costs(testing::test_device().pipes);
  expect_cost(costs.alu(kind(AluKind::kFp16Mul)), Pipe::kFp, 1, 4);
  expect_cost(costs.alu(kind(AluKind::kFp32Mul)), Pipe::kFp, 2, 6);
  expect_cost(costs.alu(kind(AluKind::kFp32Add)), Pipe::kFp, 2, 6);
  expect_cost(costs.alu(kind(AluKind::kCompareSelect)), Pipe::kFp, 1, 5);
  expect_cost(costs.alu(kind(AluKind::kIntShift)), Pipe::kInt, 1, 3);
  expect_cost(costs.alu(kind(AluKind::kIntMul)), Pipe::kInt, 4, 8);
  expect_cost(costs.alu(kind(AluKind::kConvert)), Pipe::kInt, 2, 4);
  expect_cost(costs.alu(kind(AluKind::kSpecial)), Pipe::kSpecial, 4, 8);
  expect_cost(costs.alu(kind(AluKind::kReciprocal)), Pipe::kSpecial, 6, 10);
  expect_cost(costs.alu(kind(AluKind::kRsqrt)), Pipe::kSpecial, 8, 12);
}

TEST(OpCostsTest, CollectivesAndMatrixOps) {
  const OpCosts costs(testing::test_device().pipes);
  expect_cost(costs.compute(testing::simple_op(OpClass::kShuffle)), Pipe::kSimd, 2, 5);
  expect_cost(costs.compute(testing::simple_op(OpClass::kVote)), Pipe::kSimd, 2, 5);
  expect_cost(costs.compute(testing::simple_op(OpClass::kReduction)), Pipe::kSimd, 14, 28);
  expect_cost(costs.compute(testing::simple_op(OpClass::kMatrixMultiply)), Pipe::kFp, 17, 34);
  expect_cost(costs.compute(testing::simple_op(OpClass::kMatrixMultiply, -1, 1)), Pipe::kFp, 18,
              36);
  expect_cost(costs.compute(testing::simple_op(OpClass::kMatrixFill)), Pipe::kFp, 1, 4);
}

TEST(OpCostsTest, WaitClasses) {
  const auto tg = static_cast<std::uint8_t>(sim::Space::kThreadgroup);
  EXPECT_EQ(OpCosts::wait_class(testing::simple_op(OpClass::kDeviceLoad)), StallClass::kMemoryWait);
  EXPECT_EQ(OpCosts::wait_class(testing::simple_op(OpClass::kMatrixLoad)), StallClass::kMemoryWait);
  EXPECT_EQ(OpCosts::wait_class(testing::simple_op(OpClass::kMatrixLoad, -1, tg)),
            StallClass::kThreadgroupMemoryWait);
  EXPECT_EQ(OpCosts::wait_class(testing::simple_op(OpClass::kAtomic, -1, tg)),
            StallClass::kThreadgroupMemoryWait);
  EXPECT_EQ(OpCosts::wait_class(testing::simple_op(OpClass::kMatrixMultiply)),
            StallClass::kMatrixBusy);
  EXPECT_EQ(OpCosts::wait_class(testing::simple_op(OpClass::kShuffle)), StallClass::kAluBusy);
}

void expect_traits(const OpCosts::Traits& traits, Pipe pipe, StallClass wait) {
  EXPECT_EQ(traits.pipe, pipe);
  EXPECT_EQ(traits.wait_class, wait);
}

TEST(OpCostsTest, TraitsGivePipeAndWaitClass) {
  const OpCosts costs(testing::test_device().pipes);
  const auto tg = static_cast<std::uint8_t>(sim::Space::kThreadgroup);
  sim::TraceOp alu = testing::simple_op(OpClass::kAlu);
  alu.kind = kind(AluKind::kIntShift);
  expect_traits(costs.traits(alu), Pipe::kInt, StallClass::kAluBusy);
  alu.kind = kind(AluKind::kRsqrt);  // the last AluKind
  expect_traits(costs.traits(alu), Pipe::kSpecial, StallClass::kAluBusy);
  expect_traits(costs.traits(testing::simple_op(OpClass::kShuffle)), Pipe::kSimd,
                StallClass::kAluBusy);
  expect_traits(costs.traits(testing::simple_op(OpClass::kMatrixMultiply, -1, 1)), Pipe::kFp,
                StallClass::kMatrixBusy);
  expect_traits(costs.traits(testing::simple_op(OpClass::kDeviceLoad)), Pipe::kNone,
                StallClass::kMemoryWait);
  expect_traits(costs.traits(testing::simple_op(OpClass::kMatrixLoad, -1, tg)),
                Pipe::kThreadgroupMemory, StallClass::kThreadgroupMemoryWait);
  expect_traits(costs.traits(testing::simple_op(OpClass::kThreadgroupStore)),
                Pipe::kThreadgroupMemory, StallClass::kThreadgroupMemoryWait);
  expect_traits(costs.traits(testing::simple_op(OpClass::kSimdBarrier)), Pipe::kNone,
                StallClass::kBarrierWait);
  // A barrier's kind holds its mem_flags bits: kinds past the table are computed.
  expect_traits(costs.traits(testing::simple_op(OpClass::kThreadgroupBarrier, -1, 200)),
                Pipe::kNone, StallClass::kBarrierWait);
  expect_traits(costs.traits(testing::simple_op(OpClass::kAtomic, -1, 200)), Pipe::kNone,
                StallClass::kMemoryWait);
}

TEST(OpCostsTest, RejectsZeroThroughputAndNegativeLatency) {
  model::PipeSpec pipes = testing::test_device().pipes;
  pipes.shuffle.throughput_cycles = 0;
  EXPECT_THROW(OpCosts{pipes}, InputError);
  pipes = testing::test_device().pipes;
  pipes.int_mul.latency_cycles = -1;
  EXPECT_THROW(OpCosts{pipes}, InputError);
}

}  // namespace
}  // namespace marlin::timing
