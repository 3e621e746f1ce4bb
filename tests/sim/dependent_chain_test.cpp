// Dependent chains in the trace (docs/trace-format.md, "Dependent chains"): an ALU op's `chain`
// is the longest run of its instructions of which each consumes the previous one's result,
// within one ALU segment. The kernels are tests/sim/kernels/dependent_chains.metal; every
// expected chain is worked out by hand below.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

struct ChainParams {
  std::uint32_t n;
  float seed;
};

struct AluRun {
  std::uint32_t count = 0;
  std::uint32_t chain = 0;
  int ops = 0;  // trace ops of the kind
};

// Launches `kernel` on one simdgroup and sums the trace's ALU ops of `kind`; `chain` is the
// largest chain among them.
AluRun run_of(const char* kernel, AluKind kind, std::uint32_t n, std::vector<float>* out_f) {
  std::vector<std::uint32_t> out(32, 0);
  ChainParams params{n, 0.25F};
  LaunchSpec s = spec(kernel, {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = out_f != nullptr ? buffer(*out_f) : buffer(out);
  s.buffers[1] = buffer(params);
  const LaunchResult r = launch(s);
  EXPECT_TRUE(r.ok()) << kernel;
  AluRun run;
  for (const TraceOp& op : r.trace.simdgroups.at(0).ops) {
    if (op.op != OpClass::kAlu || op.kind != static_cast<std::uint8_t>(kind)) continue;
    run.count += op.count;
    run.chain = std::max(run.chain, op.chain);
    ++run.ops;
  }
  return run;
}

TEST(DependentChainTest, OneChainIsAsLongAsTheRun) {
  std::vector<float> out(32);
  // No memory op until the final store: one segment, one op of 40 FMAs, each consuming the
  // previous one's result.
  const AluRun fma = run_of("test_chain_fma_dependent", AluKind::kFp32Fma, 40, &out);
  EXPECT_EQ(fma.ops, 1);
  EXPECT_EQ(fma.count, 40U);
  EXPECT_EQ(fma.chain, 40U);
  // The loop counter: i = 0 is a constant, then 40 increments, each consuming the last.
  const AluRun add = run_of("test_chain_fma_dependent", AluKind::kIntAdd, 40, &out);
  EXPECT_EQ(add.count, 40U);
  EXPECT_EQ(add.chain, 40U);
  // The values are still right: x <- x / 2 + 1 from 0.25, forty times.
  float x = 0.25F;
  for (int i = 0; i < 40; ++i) x = std::fma(x, 0.5F, 1.0F);
  EXPECT_EQ(out[5], x);
}

TEST(DependentChainTest, InterleavedChainsCountTheLongest) {
  std::vector<float> out(32);
  // 4 x 12 FMAs in four chains of 12; the final sum is three fp32 adds in one chain
  // ((x0 + x1) + x2) + x3.
  const AluRun fma = run_of("test_chain_fma_four", AluKind::kFp32Fma, 12, &out);
  EXPECT_EQ(fma.count, 48U);
  EXPECT_EQ(fma.chain, 12U);
  const AluRun add = run_of("test_chain_fma_four", AluKind::kFp32Add, 12, &out);
  EXPECT_EQ(add.count, 3U);
  EXPECT_EQ(add.chain, 3U);
}

TEST(DependentChainTest, ChainsOfOtherKindsDoNotCount) {
  std::vector<float> out(32);
  // x * 0.5 consumes the previous add, + 1.0 the multiply: 20 of each, chains of 1.
  const AluRun mul = run_of("test_chain_alternating", AluKind::kFp32Mul, 20, &out);
  const AluRun add = run_of("test_chain_alternating", AluKind::kFp32Add, 20, &out);
  EXPECT_EQ(mul.count, 20U);
  EXPECT_EQ(mul.chain, 1U);
  EXPECT_EQ(add.count, 20U);
  EXPECT_EQ(add.chain, 1U);
}

TEST(DependentChainTest, AMemoryOpEndsTheSegment) {
  // Each iteration: x + 3 and ++i (int adds), i < n (compare), a store. The store ends the
  // segment, so x's and i's previous values start no chain: every op has chain 1. The first
  // segment also holds x = gid (no instruction) and the first compare.
  const AluRun add = run_of("test_chain_across_stores", AluKind::kIntAdd, 6, nullptr);
  EXPECT_EQ(add.count, 12U);
  EXPECT_EQ(add.chain, 1U);
  EXPECT_GE(add.ops, 6);
}

TEST(DependentChainTest, CollectiveResultsAreWaitedFor) {
  std::vector<std::uint32_t> out(32, 0);
  LaunchSpec s = spec("test_chain_collectives", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = launch(s);
  ASSERT_TRUE(r.ok());
  // The stream: 0 shuffle (gid), 1 shuffle (a), 2 reduction (b), 3 ALU + 1 (c),
  // 4 shuffle (gid), 5 ALU c + d, 6 store.
  const std::vector<TraceOp>& ops = r.trace.simdgroups.at(0).ops;
  ASSERT_EQ(ops.size(), 7U);
  EXPECT_EQ(ops[0].op, OpClass::kShuffle);
  EXPECT_EQ(ops[0].dep, -1);
  EXPECT_EQ(ops[1].op, OpClass::kShuffle);
  EXPECT_EQ(ops[1].dep, 0);
  EXPECT_EQ(ops[2].op, OpClass::kReduction);
  EXPECT_EQ(ops[2].dep, 1);
  EXPECT_EQ(ops[3].op, OpClass::kAlu);
  EXPECT_EQ(ops[3].dep, 2);
  EXPECT_EQ(ops[4].op, OpClass::kShuffle);
  EXPECT_EQ(ops[4].dep, -1);
  EXPECT_EQ(ops[5].op, OpClass::kAlu);
  EXPECT_EQ(ops[5].dep, 4);
  // Values: lane l reads l ^ 1, then (l ^ 1) ^ 2 = l ^ 3; the sum of all lanes is 496.
  for (std::uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[l], 496U + 1U + (l ^ 4U)) << l;
}

}  // namespace
}  // namespace marlin::sim
