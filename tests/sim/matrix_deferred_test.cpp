// Matrix multiplies that lanes pass without waiting: they run once, in program order, with the
// lanes that reached them, and lanes that disagree on them are reported. Expected values from
// plain C++ loops.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>
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

// acc + x * y for 8x8 row-major matrices, each element accumulated with fma in k order (the
// order the engine's multiply uses for float accumulators).
std::vector<float> multiply_add(const _Float16* x, const _Float16* y, std::vector<float> acc) {
  std::vector<float> out(64);
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = 0; j < 8; ++j) {
      float s = acc[i * 8 + j];
      for (std::size_t k = 0; k < 8; ++k) {
        s = std::fma(static_cast<float>(x[i * 8 + k]), static_cast<float>(y[k * 8 + j]), s);
      }
      out[i * 8 + j] = s;
    }
  }
  return out;
}
std::vector<float> multiply_add(const std::vector<_Float16>& a, std::vector<float> acc) {
  return multiply_add(a.data(), a.data(), std::move(acc));
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

// Runs a one-simdgroup kernel with buffers (a, d) that must stop with one diagnostic, and
// returns it (a default one, after a test failure, if there is not exactly one).
template <class D>
Diagnostic sole_diagnostic(const char* kernel, std::vector<_Float16>& a, std::vector<D>& d) {
  LaunchSpec s = spec(kernel, {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(a);
  s.buffers[1] = buffer(d);
  s.options.throw_on_diagnostic = false;
  const LaunchResult r = launch(s);
  EXPECT_EQ(r.diagnostics.size(), 1u);
  return r.diagnostics.size() == 1 ? r.diagnostics[0] : Diagnostic{};
}

TEST(MatrixDeferredTest, DifferentMatrixOpsAreReportedAsDivergence) {
  std::vector<_Float16> a = small_matrix();
  std::vector<float> d(64);
  const Diagnostic diag = sole_diagnostic("test_matrix_divergent_ops", a, d);
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

std::vector<_Float16> ramp(std::size_t n) {
  std::vector<_Float16> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<_Float16>(static_cast<float>(i) * 0.5f);
  return v;
}

TEST(MatrixDeferredTest, ALoadReadsTheTileAsTheWholeSimdgroupLeftIt) {
  std::vector<_Float16> values = ramp(64);
  std::vector<_Float16> loaded(64), after(64);
  LaunchSpec s = spec("test_matrix_load_between_writes", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(values);
  s.buffers[1] = buffer(loaded);
  s.buffers[2] = buffer(after);
  const LaunchResult r = launch(s);  // with the race sanitizer on
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].message;
  EXPECT_EQ(loaded, values);  // every lane's first writes, none of the overwrites
  for (std::size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(static_cast<float>(after[i]), i < 32 ? -1.0f : -2.0f) << "element " << i;
  }
}

TEST(MatrixDeferredTest, LanesPassLoadsInARowAndWaitOnceBeforeTheirStore) {
  std::vector<_Float16> a(256);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<_Float16>(static_cast<float>(i % 7) * 0.25f - 0.5f);
  }
  std::vector<float> d(64);
  std::vector<int> marks(32, -1);
  LaunchSpec s = spec("test_matrix_loads_in_a_row", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(a);
  s.buffers[1] = buffer(d);
  s.buffers[2] = buffer(marks);
  s.options.trace = true;
  const LaunchResult r = launch(s);
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].message;
  // d = m0 m1 + m2 m3: the first product accumulated from zero, the second onto it.
  const _Float16* m = a.data();
  EXPECT_EQ(d, multiply_add(m + 128, m + 192, multiply_add(m, m + 64, std::vector<float>(64))));
  for (int l = 0; l < 32; ++l) EXPECT_EQ(marks[static_cast<std::size_t>(l)], l);
  // Three rounds of the 32 lanes: to the device store (which waits for the four loads), to
  // the matrix store, to the end. Waiting at each load would take four more.
  EXPECT_EQ(r.stats.fiber_resumes, 3u * 32u);
  const std::vector<TraceOp> ops = non_alu(r.trace.simdgroups[0]);
  const std::vector<OpClass> order = {
      OpClass::kMatrixLoad,     OpClass::kMatrixLoad,     OpClass::kMatrixLoad,
      OpClass::kMatrixLoad,     OpClass::kDeviceStore,    OpClass::kMatrixFill,
      OpClass::kMatrixMultiply, OpClass::kMatrixMultiply, OpClass::kMatrixStore};
  ASSERT_EQ(ops.size(), order.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(ops[i].op, order[i]) << "op " << i << ": " << op_class_name(ops[i].op);
    EXPECT_EQ(ops[i].mask, 0xFFFFFFFFu) << "op " << i;
  }
}

TEST(MatrixDeferredTest, LoadsFromDifferentAddressesAreReportedAsDivergence) {
  std::vector<_Float16> a = ramp(128);
  std::vector<_Float16> d(64);
  const Diagnostic diag = sole_diagnostic("test_matrix_load_divergent_operands", a, d);
  EXPECT_EQ(diag.kind, DiagnosticKind::kBarrierDivergence);
  EXPECT_EQ(diag.thread[0], 16u);
  EXPECT_EQ(diag.other_thread[0], 0u);
  EXPECT_NE(diag.message.find("different operands"), std::string::npos) << diag.message;
}

TEST(MatrixDeferredTest, AnotherSimdgroupWritingALoadedTileIsARace) {
  std::vector<_Float16> values = ramp(64);
  std::vector<_Float16> d(64);
  LaunchSpec s = spec("test_matrix_load_race", {1, 1, 1}, {64, 1, 1});
  s.buffers[0] = buffer(values);
  s.buffers[1] = buffer(d);
  s.options.throw_on_diagnostic = false;
  const LaunchResult r = launch(s);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].kind, DiagnosticKind::kThreadgroupRace) << r.diagnostics[0].message;
}

}  // namespace
}  // namespace marlin::sim
