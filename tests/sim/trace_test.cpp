// The trace: ALU counting from what executes, merged SIMD ops, accesses and dependencies.
#include <gtest/gtest.h>

#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

std::uint64_t alu(const LaunchResult& r, AluKind k) {
  return r.stats.alu_lane_ops[static_cast<std::size_t>(k)];
}

LaunchResult run_half_math(bool trace) {
  const std::uint32_t n = 32;
  std::vector<_Float16> a(n), b(n), out(n), vout(4 * n);
  for (std::uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<_Float16>(static_cast<float>(i) * 0.5f);
    b[i] = static_cast<_Float16>(2.0f);
  }
  LaunchSpec s = spec("test_half_math", {1, 1, 1}, {n, 1, 1});
  s.buffers[0] = buffer(a);
  s.buffers[1] = buffer(b);
  s.buffers[2] = buffer(out);
  s.buffers[3] = buffer(vout);
  s.options.trace = trace;
  LaunchResult r = launch(s);
  for (std::uint32_t i = 0; i < n; ++i) {
    const float x = static_cast<float>(i) * 0.5f;
    EXPECT_EQ(static_cast<float>(out[i]), x * 2.0f + 1.0f);
    EXPECT_EQ(static_cast<float>(vout[4 * i]), x + 2.0f);  // half4(hi, lo) = (x+y, 2, x, y)
    EXPECT_EQ(static_cast<float>(vout[4 * i + 1]), 2.0f);
    EXPECT_EQ(static_cast<float>(vout[4 * i + 2]), x);
    EXPECT_EQ(static_cast<float>(vout[4 * i + 3]), 2.0f);
  }
  return r;
}

TEST(TraceTest, AluWorkIsCountedFromExecution) {
  const LaunchResult r = run_half_math(true);
  // Per thread: x * y (1 mul) + 1.0h (1 add); x + y (1 add); half4 * half4 (4 muls).
  EXPECT_EQ(alu(r, AluKind::kFp16Mul), 32u * 5);
  EXPECT_EQ(alu(r, AluKind::kFp16Add), 32u * 2);
  for (AluKind k : {AluKind::kFp16Fma, AluKind::kFp32Fma, AluKind::kFp32Add, AluKind::kFp32Mul,
                    AluKind::kIntAdd, AluKind::kConvert, AluKind::kSpecial, AluKind::kReciprocal,
                    AluKind::kRsqrt}) {
    EXPECT_EQ(alu(r, k), 0u) << alu_kind_name(k);
  }
}

TEST(TraceTest, MergedOpsAccessesAndDeps) {
  const LaunchResult r = run_half_math(true);
  ASSERT_EQ(r.trace.version, kTraceFormatVersion);
  ASSERT_EQ(r.trace.simdgroups.size(), 1u);
  const SimdgroupTrace& t = r.trace.simdgroups[0];
  // load a, load b, (add 1, mul 1), store out, (add 1, mul 4), store vout.
  const std::vector<OpClass> classes = {OpClass::kDeviceLoad, OpClass::kDeviceLoad,  OpClass::kAlu,
                                        OpClass::kAlu,        OpClass::kDeviceStore, OpClass::kAlu,
                                        OpClass::kAlu,        OpClass::kDeviceStore};
  ASSERT_EQ(t.ops.size(), classes.size());
  for (std::size_t i = 0; i < classes.size(); ++i) {
    EXPECT_EQ(t.ops[i].op, classes[i]) << i;
    EXPECT_EQ(t.ops[i].mask, 0xFFFFFFFFu) << i;
  }
  EXPECT_EQ(t.ops[2].kind, static_cast<std::uint8_t>(AluKind::kFp16Add));
  EXPECT_EQ(t.ops[3].kind, static_cast<std::uint8_t>(AluKind::kFp16Mul));
  EXPECT_EQ(t.ops[6].count, 4u);
  // Loads wait for nothing; everything after them waits for the second load.
  EXPECT_EQ(t.ops[0].dep, -1);
  EXPECT_EQ(t.ops[1].dep, -1);
  for (std::size_t i = 2; i < t.ops.size(); ++i) EXPECT_EQ(t.ops[i].dep, 1) << i;
  // Per-lane accesses: half loads at 2 * lane of buffer 1, half4 stores at 8 * lane.
  const TraceOp& load_b = t.ops[1];
  ASSERT_EQ(load_b.count, 32u);
  for (std::uint32_t l = 0; l < 32; ++l) {
    const MemAccess a = access_at(t.accesses.data() + load_b.first_access, l);
    EXPECT_EQ(a.buffer, 1u);
    EXPECT_EQ(a.offset, 2 * l);
    EXPECT_EQ(a.bytes, 2u);
    EXPECT_EQ(a.lane, l);
  }
  const MemAccess v = access_at(t.accesses.data() + t.ops[7].first_access, 5);
  EXPECT_EQ(v.offset, 8u * 5);
  EXPECT_EQ(v.bytes, 8u);
  // All four memory ops are affine runs of 32 lanes: two records each.
  EXPECT_EQ(stored_accesses(t.accesses.data() + load_b.first_access, load_b.count), 2u);
  EXPECT_EQ(t.accesses.size(), 4u * 2);
}

// The builder stores an op's accesses as an affine run only when every access follows it.
TEST(TraceTest, AccessesAreStoredAsAffineRunsOnlyWhenAffine) {
  SimdgroupTrace out;
  SimdTraceBuilder builder(&out);
  const auto kind = static_cast<std::uint8_t>(Space::kThreadgroup);
  // Rows 0..3 at offsets 100, 96, 92, 88: a run with stride -4.
  builder.append_sync(OpClass::kMatrixLoad, kind, 1,
                      {{100, 7, 16, 0}, {96, 7, 16, 1}, {92, 7, 16, 2}, {88, 7, 16, 3}});
  // Not runs: offsets 0, 4, 12; a lane skipped; a size change; two accesses.
  builder.append_sync(OpClass::kMatrixLoad, kind, 1, {{0, 7, 4, 0}, {4, 7, 4, 1}, {12, 7, 4, 2}});
  builder.append_sync(OpClass::kMatrixLoad, kind, 1, {{0, 7, 4, 0}, {4, 7, 4, 1}, {8, 7, 4, 3}});
  builder.append_sync(OpClass::kMatrixLoad, kind, 1, {{0, 7, 4, 0}, {4, 7, 4, 1}, {8, 7, 2, 2}});
  builder.append_sync(OpClass::kMatrixLoad, kind, 1, {{0, 7, 4, 0}, {4, 7, 4, 1}});
  ASSERT_EQ(out.ops.size(), 5u);
  const std::vector<std::uint32_t> stored = {2, 3, 3, 3, 2};
  EXPECT_EQ(out.accesses.size(), 2u + 3 + 3 + 3 + 2);
  for (std::size_t i = 0; i < out.ops.size(); ++i) {
    EXPECT_EQ(stored_accesses(out.accesses.data() + out.ops[i].first_access, out.ops[i].count),
              stored[i])
        << i;
  }
  const MemAccess* run = out.accesses.data() + out.ops[0].first_access;
  for (std::uint32_t row = 0; row < 4; ++row) {
    EXPECT_EQ(access_at(run, row),
              (MemAccess{100 - 4 * row, 7, 16, static_cast<std::uint8_t>(row)}))
        << row;
  }
  const MemAccess* skipped = out.accesses.data() + out.ops[2].first_access;
  EXPECT_EQ(access_at(skipped, 2), (MemAccess{8, 7, 4, 3}));
}

TEST(TraceTest, TracingOffKeepsResultsAndCounts) {
  const LaunchResult on = run_half_math(true);
  const LaunchResult off = run_half_math(false);
  EXPECT_TRUE(off.trace.simdgroups.empty());
  EXPECT_EQ(on.stats.alu_lane_ops, off.stats.alu_lane_ops);
}

TEST(TraceTest, DivergentLanesGetPartialMasks) {
  // test_axpy with n = 20: lanes 20..31 return before loading.
  std::vector<float> x(32, 1.0f), y(32, 2.0f);
  struct {
    std::uint32_t n;
    float alpha;
  } params{20, 2.0f};
  LaunchSpec s = spec("test_axpy", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(x);
  s.buffers[1] = buffer(y);
  s.buffers[2] = buffer(params);
  const LaunchResult r = launch(s);
  const SimdgroupTrace& t = r.trace.simdgroups.at(0);
  std::uint32_t loads_of_x = 0;
  for (const TraceOp& op : t.ops) {
    if (op.op == OpClass::kDeviceLoad && op.count > 0 &&
        access_at(t.accesses.data() + op.first_access, 0).buffer == 0) {
      ++loads_of_x;
      EXPECT_EQ(op.mask, (1u << 20) - 1);
      EXPECT_EQ(op.count, 20u);
    }
  }
  EXPECT_EQ(loads_of_x, 1u);
}

TEST(TraceTest, MatrixOpsHaveExactSlotDependencies) {
  std::vector<_Float16> a(64, static_cast<_Float16>(1.0f)), b(64, static_cast<_Float16>(1.0f));
  std::vector<float> c(64, 0.0f), d(64), f(64);
  std::vector<_Float16> e(64);
  LaunchSpec s = spec("test_matrix_mma", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(a);
  s.buffers[1] = buffer(b);
  s.buffers[2] = buffer(c);
  s.buffers[3] = buffer(d);
  s.buffers[4] = buffer(e);
  s.buffers[5] = buffer(f);
  const LaunchResult r = launch(s);
  const SimdgroupTrace& t = r.trace.simdgroups.at(0);
  ASSERT_GE(t.ops.size(), 6u);
  EXPECT_EQ(t.ops[0].op, OpClass::kMatrixLoad);
  EXPECT_EQ(t.ops[0].count, 8u);  // eight 16-byte rows
  EXPECT_EQ(access_at(t.accesses.data() + t.ops[0].first_access, 3).offset, 3u * 16);
  EXPECT_EQ(access_at(t.accesses.data() + t.ops[0].first_access, 3).bytes, 16u);
  EXPECT_EQ(t.ops[1].op, OpClass::kMatrixLoad);
  EXPECT_EQ(t.ops[2].op, OpClass::kMatrixLoad);
  EXPECT_EQ(t.ops[3].op, OpClass::kMatrixMultiply);
  EXPECT_EQ(t.ops[3].dep, 2);  // reads a (op 0), b (op 1) and c (op 2)
  EXPECT_EQ(t.ops[4].op, OpClass::kMatrixStore);
  EXPECT_EQ(t.ops[4].dep, 3);
  EXPECT_EQ(t.ops[5].op, OpClass::kMatrixMultiply);
  EXPECT_EQ(t.ops[5].dep, 1);  // simdgroup_multiply(e, a, b): a and b only
  // kind: 0 for half x half, 1 once an input is float (two is a float matrix).
  EXPECT_EQ(t.ops[3].kind, 0u);
  EXPECT_EQ(t.ops[5].kind, 0u);
  std::vector<std::uint8_t> multiply_kinds;
  for (const TraceOp& op : t.ops) {
    if (op.op == OpClass::kMatrixMultiply) multiply_kinds.push_back(op.kind);
  }
  EXPECT_EQ(multiply_kinds, (std::vector<std::uint8_t>{0, 0, 1}));
}

TEST(TraceTest, BarrierRecordedPerSimdgroup) {
  std::vector<std::uint32_t> in(64, 1), out(1);
  LaunchSpec s = spec("test_tg_arg_reduce", {1, 1, 1}, {64, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  s.threadgroup_lengths[0] = 256;
  const LaunchResult r = launch(s);
  EXPECT_EQ(out[0], 64u);
  ASSERT_EQ(r.trace.simdgroups.size(), 2u);
  for (const SimdgroupTrace& t : r.trace.simdgroups) {
    std::uint32_t barriers = 0;
    for (const TraceOp& op : t.ops) barriers += op.op == OpClass::kThreadgroupBarrier ? 1 : 0;
    EXPECT_EQ(barriers, 7u);  // one before the loop, six strides (32..1)
  }
}

}  // namespace
}  // namespace marlin::sim

#include <sstream>

#include "model/common/input_error.h"
#include "sim/runtime/trace_io.h"

namespace marlin::sim {
namespace {

TEST(TraceIoTest, RoundTripAndRejection) {
  std::vector<std::uint32_t> in(64, 2), out(1);
  LaunchSpec s = testing::spec("test_tg_arg_reduce", {1, 1, 1}, {64, 1, 1});
  s.buffers[0] = testing::buffer(in);
  s.buffers[1] = testing::buffer(out);
  s.threadgroup_lengths[0] = 256;
  const LaunchResult r = launch(s);
  std::stringstream file;
  write_trace(file, r.trace);
  const LaunchTrace back = read_trace(file, "mem");
  EXPECT_EQ(back, r.trace);
  EXPECT_EQ(back.kernel, "test_tg_arg_reduce");

  std::stringstream garbage("not a trace at all");
  EXPECT_THROW(read_trace(garbage, "garbage"), InputError);
  std::string bytes;
  {
    std::stringstream again;
    write_trace(again, r.trace);
    bytes = again.str();
  }
  std::stringstream truncated(bytes.substr(0, bytes.size() / 2));
  EXPECT_THROW(read_trace(truncated, "truncated"), InputError);
  bytes[8] = 99;  // version
  std::stringstream wrong_version(bytes);
  try {
    read_trace(wrong_version, "v99");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("trace format version 99"), std::string::npos);
  }
}

}  // namespace
}  // namespace marlin::sim
