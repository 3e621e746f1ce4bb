// Matrix multiplies that lanes pass without waiting: they run once, in program order, with the
// lanes that reached them, and lanes that disagree on them are reported. Expected values from
// plain C++ loops.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::non_alu;
using testing::spec;

std::vector<_Float16> small_matrix() {
  std::vector<_Float16> a(64);
  for (int i = 0; i < 64; ++i) {
    a[static_cast<std::size_t>(i)] = static_cast<_Float16>((i % 9) * 0.25f - 1.0f);
  }
  return a;
}

// acc + a * a for 8x8 row-major matrices, each element accumulated with fma in k order (the
// order the engine's multiply uses for float accumulators).
std::vector<float> multiply_add(const std::vector<_Float16>& a, std::vector<float> acc) {
  std::vector<float> out(64);
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = 0; j < 8; ++j) {
      float s = acc[i * 8 + j];
      for (std::size_t k = 0; k < 8; ++k) {
        s = std::fma(static_cast<float>(a[i * 8 + k]), static_cast<float>(a[k * 8 + j]), s);
      }
      out[i * 8 + j] = s;
    }
  }
  return out;
}

TEST(MatrixDeferredTest, MultiplyAfterDivergentShuffleRunsOnce) {
  std::vector<_Float16> a = small_matrix();
  std::vector<float> c(64), d(64, -1.0f);
  for (std::size_t i = 0; i < 64; ++i) c[i] = static_cast<float>(i) * 0.5f;
  std::vector<int> shuffled(32, 0);
  LaunchSpec s = spec("test_matrix_after_divergent_shuffle", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(a);
  s.buffers[1] = buffer(c);
  s.buffers[2] = buffer(d);
  s.buffers[3] = buffer(shuffled);
  s.options.trace = true;
  const LaunchResult r = launch(s);
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].message;
  EXPECT_EQ(d, multiply_add(a, c));
  for (std::uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(shuffled[l], l < 8 ? static_cast<int>((l ^ 1u) * 10) : -1) << "lane " << l;
  }
  // Trace: two matrix loads, the shuffle of lanes 0-7, one multiply of all 32, the store and
  // the device store.
  const std::vector<TraceOp> ops = non_alu(r.trace.simdgroups[0]);
  ASSERT_EQ(ops.size(), 6u);
  EXPECT_EQ(ops[2].op, OpClass::kShuffle);
  EXPECT_EQ(ops[2].mask, 0xFFu);
  EXPECT_EQ(ops[3].op, OpClass::kMatrixMultiply);
  EXPECT_EQ(ops[3].mask, 0xFFFFFFFFu);
}

TEST(MatrixDeferredTest, MultiplyReachedByHalfTheLanesRunsWithTheirMask) {
  std::vector<_Float16> a = small_matrix();
  std::vector<float> d(64, -1.0f);
  LaunchSpec s = spec("test_matrix_partial_lanes", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(a);
  s.buffers[1] = buffer(d);
  s.options.trace = true;
  const LaunchResult r = launch(s);
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].message;
  EXPECT_EQ(d, multiply_add(a, std::vector<float>(64, 1.0f)));
  const std::vector<TraceOp> ops = non_alu(r.trace.simdgroups[0]);
  ASSERT_EQ(ops.size(), 4u);  // load, fill, multiply, store
  EXPECT_EQ(ops[2].op, OpClass::kMatrixMultiply);
  EXPECT_EQ(ops[2].mask, 0xFFFFu);
  EXPECT_EQ(ops[3].mask, 0xFFFFFFFFu);
}

TEST(MatrixDeferredTest, DifferentMatrixOpsAreReportedAsDivergence) {
  std::vector<_Float16> a = small_matrix();
  std::vector<float> d(64);
  LaunchSpec s = spec("test_matrix_divergent_ops", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(a);
  s.buffers[1] = buffer(d);
  s.options.throw_on_diagnostic = false;
  const LaunchResult r = launch(s);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& diag = r.diagnostics[0];
  EXPECT_EQ(diag.kind, DiagnosticKind::kBarrierDivergence);
  EXPECT_EQ(diag.thread[0], 16u);       // the first lane of the else branch
  EXPECT_EQ(diag.other_thread[0], 0u);  // the lane that reached the multiply-accumulate
  EXPECT_NE(diag.message.find("simdgroup matrix operation"), std::string::npos) << diag.message;
}

TEST(MatrixDeferredTest, LaneLoadsStayBeforeTheMultiplyThatFollowsThem) {
  std::vector<_Float16> a = small_matrix();
  std::vector<float> x = {1.5f, 2.5f, -3.0f, 4.0f, 0.25f, -1.0f, 8.0f, 0.5f};
  std::vector<float> d(64), sums(32, -1.0f);
  LaunchSpec s = spec("test_matrix_segments", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(a);
  s.buffers[1] = buffer(x);
  s.buffers[2] = buffer(d);
  s.buffers[3] = buffer(sums);
  s.options.trace = true;
  const LaunchResult r = launch(s);
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].message;
  EXPECT_EQ(d, multiply_add(a, multiply_add(a, std::vector<float>(64, 0.0f))));
  for (std::size_t l = 0; l < 32; ++l) {
    EXPECT_EQ(sums[l], l < 4 ? 0.0f + x[l] + x[4 + l] : 0.0f) << "lane " << l;
  }
  const std::vector<TraceOp> ops = non_alu(r.trace.simdgroups[0]);
  const std::vector<std::pair<OpClass, std::uint32_t>> expected = {
      {OpClass::kMatrixLoad, 0xFFFFFFFFu},  {OpClass::kMatrixFill, 0xFFFFFFFFu},
      {OpClass::kDeviceLoad, 0xFu},         {OpClass::kMatrixMultiply, 0xFFFFFFFFu},
      {OpClass::kDeviceLoad, 0xFu},         {OpClass::kMatrixMultiply, 0xFFFFFFFFu},
      {OpClass::kMatrixStore, 0xFFFFFFFFu}, {OpClass::kDeviceStore, 0xFFFFFFFFu}};
  ASSERT_EQ(ops.size(), expected.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(ops[i].op, expected[i].first) << "op " << i << ": " << op_class_name(ops[i].op);
    EXPECT_EQ(ops[i].mask, expected[i].second) << "op " << i;
  }
}

}  // namespace
}  // namespace marlin::sim
