// Each sanitizer with a planted bug, and clean kernels that must not be flagged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

LaunchResult run_collecting(LaunchSpec s) {
  s.options.throw_on_diagnostic = false;
  return launch(s);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SanitizerTest, OutOfBoundsDeviceStoreNamesKernelThreadBufferOffset) {
  std::vector<float> out(63);  // the grid covers 64 threads
  LaunchSpec s = spec("bug_oob_device", {2, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = run_collecting(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.kind, DiagnosticKind::kOutOfBounds);
  EXPECT_EQ(d.buffer, 0);
  EXPECT_EQ(d.offset, 63 * 4);
  EXPECT_EQ(d.thread, (std::array<std::uint32_t, 3>{31, 0, 0}));
  EXPECT_EQ(d.threadgroup, (std::array<std::uint32_t, 3>{1, 0, 0}));
  EXPECT_TRUE(contains(d.message, "kernel 'bug_oob_device'")) << d.message;
  EXPECT_TRUE(contains(d.message, "buffer(0) 'out'")) << d.message;
  EXPECT_TRUE(contains(d.message, "byte offset 252")) << d.message;
  // Thrown as a KernelFault by default.
  EXPECT_THROW(launch(s), KernelFault);
}

TEST(SanitizerTest, OutOfBoundsThreadgroupStoreIsCaughtAtTheDeclaration) {
  std::vector<float> out(32);
  LaunchSpec s = spec("bug_oob_threadgroup", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = run_collecting(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.kind, DiagnosticKind::kOutOfBounds);
  EXPECT_EQ(d.region, "tile");
  EXPECT_EQ(d.offset, 32 * 4);
  EXPECT_EQ(d.thread[0], 31u);
  EXPECT_TRUE(contains(d.message, "threadgroup memory 'tile'")) << d.message;
}

TEST(SanitizerTest, RaceNamesBothThreads) {
  std::vector<std::uint32_t> out(64);
  LaunchSpec s = spec("bug_race", {1, 1, 1}, {64, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = run_collecting(s);
  ASSERT_FALSE(r.diagnostics.empty());
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.kind, DiagnosticKind::kThreadgroupRace);
  EXPECT_EQ(d.region, "tile");
  // Threads run in order within a phase: thread 0 reads tile[0] and writes tile[1] (byte
  // 4), then thread 1 reads tile[1]. Both are named.
  EXPECT_EQ(d.thread[0], 1u);
  EXPECT_EQ(d.other_thread[0], 0u);
  EXPECT_EQ(d.offset, 4);
  EXPECT_TRUE(contains(d.message, "thread (0,0,0) wrote it and thread (1,0,0) reads it"))
      << d.message;
}

TEST(SanitizerTest, RaceOnOneByteOfAHalf) {
  std::vector<std::uint32_t> out(1);
  LaunchSpec s = spec("bug_byte_race", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = run_collecting(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.kind, DiagnosticKind::kThreadgroupRace);
  EXPECT_EQ(d.region, "values");
  // Thread 0 wrote bytes 2-3 (values[1]); thread 1 reads byte 3 alone.
  EXPECT_EQ(d.thread[0], 1u);
  EXPECT_EQ(d.other_thread[0], 0u);
  EXPECT_EQ(d.offset, 3);
  EXPECT_EQ(d.bytes, 1u);
}

TEST(SanitizerTest, CleanTwinIsNotFlagged) {
  std::vector<std::uint32_t> out(64);
  LaunchSpec s = spec("clean_shift", {1, 1, 1}, {64, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = run_collecting(s);
  EXPECT_TRUE(r.ok()) << r.diagnostics[0].message;
  for (std::uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], (t + 63) % 64 + 1);
}

TEST(SanitizerTest, UninitializedThreadgroupRead) {
  std::vector<float> out(64);
  LaunchSpec s = spec("bug_uninitialized", {1, 1, 1}, {64, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = run_collecting(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);  // reported once per declaration and threadgroup
  EXPECT_EQ(r.diagnostics[0].kind, DiagnosticKind::kUninitializedRead);
  EXPECT_EQ(r.diagnostics[0].thread[0], 32u);
  EXPECT_EQ(r.diagnostics[0].offset, 32 * 4);
}

TEST(SanitizerTest, BarrierAfterEarlyReturnIsDivergenceNotAHang) {
  std::vector<float> out(64);
  LaunchSpec s = spec("bug_barrier_early_return", {1, 1, 1}, {64, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = run_collecting(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, DiagnosticKind::kBarrierDivergence);
  EXPECT_TRUE(contains(r.diagnostics[0].message, "16 threads (first (0,0,0)) wait"))
      << r.diagnostics[0].message;
  EXPECT_TRUE(contains(r.diagnostics[0].message, "48 threads (first (16,0,0)) returned"));
}

TEST(SanitizerTest, BarriersAtTwoSitesAreDivergence) {
  std::vector<float> out(32);
  LaunchSpec s = spec("bug_barrier_two_sites", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = run_collecting(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, DiagnosticKind::kBarrierDivergence);
  EXPECT_TRUE(contains(r.diagnostics[0].message, "sanitizer.metal")) << r.diagnostics[0].message;
}

TEST(SanitizerTest, BarrierInsideADivergentBranch) {
  // The partial reduction is legal; the barrier only lanes 0..15 reach is not.
  std::vector<float> out(32);
  LaunchSpec s = spec("bug_barrier_in_divergent_branch", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r = run_collecting(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, DiagnosticKind::kBarrierDivergence);
  EXPECT_TRUE(contains(r.diagnostics[0].message, "16 threads (first (0,0,0)) wait"))
      << r.diagnostics[0].message;
  EXPECT_TRUE(contains(r.diagnostics[0].message, "16 threads (first (16,0,0)) returned"))
      << r.diagnostics[0].message;
}

TEST(SanitizerTest, DiagnosticsIdenticalAtOneAndTwoHostThreads) {
  std::vector<std::uint32_t> out(64 * 8);
  LaunchSpec s = spec("bug_race", {8, 1, 1}, {64, 1, 1});
  s.buffers[0] = buffer(out);
  const LaunchResult r1 = run_collecting(s);
  s.options.host_threads = 2;
  const LaunchResult r2 = run_collecting(s);
  ASSERT_EQ(r1.diagnostics.size(), r2.diagnostics.size());
  for (std::size_t i = 0; i < r1.diagnostics.size(); ++i) {
    EXPECT_EQ(r1.diagnostics[i].message, r2.diagnostics[i].message);
  }
}

}  // namespace
}  // namespace marlin::sim

namespace marlin::sim {
namespace {

TEST(SanitizerTest, MatrixOperandsDifferAcrossLanes) {
  std::vector<float> in(128), out(64);
  LaunchSpec s = testing::spec("bug_matrix_operands_differ", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = testing::buffer(in);
  s.buffers[1] = testing::buffer(out);
  s.options.throw_on_diagnostic = false;
  const LaunchResult r = launch(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, DiagnosticKind::kBarrierDivergence);
  EXPECT_EQ(r.diagnostics[0].thread[0], 16u);  // the first lane that disagrees with lane 0
  EXPECT_EQ(r.diagnostics[0].other_thread[0], 0u);
  EXPECT_NE(r.diagnostics[0].message.find("with different operands"), std::string::npos)
      << r.diagnostics[0].message;
}

TEST(SanitizerTest, MatrixLoadOutOfBounds) {
  std::vector<float> in(64), out(64);
  LaunchSpec s = testing::spec("bug_matrix_oob", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = testing::buffer(in);
  s.buffers[1] = testing::buffer(out);
  s.options.throw_on_diagnostic = false;
  const LaunchResult r = launch(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, DiagnosticKind::kOutOfBounds);
  EXPECT_EQ(r.diagnostics[0].offset, 8 * 8 * 4);  // row 4 of the block is memory row 8
  EXPECT_NE(r.diagnostics[0].message.find("simdgroup_load row 4"), std::string::npos)
      << r.diagnostics[0].message;
}

}  // namespace
}  // namespace marlin::sim

namespace marlin::sim {
namespace {

TEST(SanitizerTest, FiberStackOverflowIsReported) {
  std::vector<float> in(1536, 1.0f), out(1);
  LaunchSpec s = testing::spec("bug_stack_hungry", {1, 1, 1}, {1, 1, 1});
  s.buffers[0] = testing::buffer(in);
  s.buffers[1] = testing::buffer(out);
  s.options.throw_on_diagnostic = false;
  s.options.trace = false;
  s.options.fiber_stack_bytes = 4096;
  const LaunchResult small = launch(s);
  ASSERT_EQ(small.diagnostics.size(), 1u);
  EXPECT_NE(small.diagnostics[0].message.find("overflowed its 4096-byte fiber stack"),
            std::string::npos)
      << small.diagnostics[0].message;
  s.options.fiber_stack_bytes = 64 * 1024;  // the default is enough
  const LaunchResult enough = launch(s);
  EXPECT_TRUE(enough.ok());
  EXPECT_EQ(out[0], 1536.0f);
}

// A matrix load's row holds elements that several threads stored: the sanitizer checks each
// element, and reports the one nobody wrote.
TEST(SanitizerTest, MatrixLoadOfAnUnwrittenElement) {
  std::vector<_Float16> out(64);
  LaunchSpec s = testing::spec("bug_matrix_load_uninitialized", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = testing::buffer(out);
  const LaunchResult r = run_collecting(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, DiagnosticKind::kUninitializedRead);
  EXPECT_EQ(r.diagnostics[0].offset, 53 * 2) << r.diagnostics[0].message;  // element 53
}

// The load reads row 0 after simdgroup 1 wrote it again: a race with thread 32, the writer of
// element 0.
TEST(SanitizerTest, MatrixLoadRacingWithAnotherSimdgroupsStores) {
  std::vector<_Float16> out(64);
  LaunchSpec s = testing::spec("bug_matrix_load_race", {1, 1, 1}, {64, 1, 1});
  s.buffers[0] = testing::buffer(out);
  const LaunchResult r = run_collecting(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, DiagnosticKind::kThreadgroupRace);
  EXPECT_EQ(r.diagnostics[0].offset, 0) << r.diagnostics[0].message;
  EXPECT_EQ(r.diagnostics[0].other_thread[0], 32u) << r.diagnostics[0].message;
}

}  // namespace
}  // namespace marlin::sim
