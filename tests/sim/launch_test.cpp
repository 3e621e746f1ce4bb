// Launch basics: argument binding, built-ins in 1D/2D/3D, constant references.
#include "sim/runtime/launch.h"

#include <gtest/gtest.h>

#include <vector>

#include "model/common/input_error.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

struct AxpyParams {
  std::uint32_t n;
  float alpha;
};

TEST(LaunchTest, AxpyMatchesReferenceWithGuard) {
  const std::uint32_t n = 100;
  std::vector<float> x(n);
  std::vector<float> y(n + 28, -1.0f);  // 128 threads run; the guard keeps 28 untouched
  for (std::uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i) * 0.5f;
    y[i] = static_cast<float>(i);
  }
  AxpyParams params{n, 3.0f};
  LaunchSpec s = spec("test_axpy", {2, 1, 1}, {64, 1, 1});
  s.buffers[0] = buffer(x);
  s.buffers[1] = buffer(y);
  s.buffers[2] = buffer(params);
  const LaunchResult r = launch(s);
  EXPECT_TRUE(r.ok());
  for (std::uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(y[i], 3.0f * (static_cast<float>(i) * 0.5f) + static_cast<float>(i)) << i;
  }
  for (std::uint32_t i = n; i < n + 28; ++i) EXPECT_EQ(y[i], -1.0f);
  EXPECT_EQ(r.stats.threadgroups, 2u);
  EXPECT_EQ(r.stats.threads, 128u);
}

void check_builtins(Dim3 grid, Dim3 tg) {
  const std::uint64_t threads = grid.volume() * tg.volume();
  std::vector<std::uint32_t> out(threads * 16, 0xDEADBEEF);
  LaunchSpec s = spec("test_builtins", grid, tg);
  s.buffers[0] = buffer(out);
  launch(s);
  const std::uint32_t width = grid.x * tg.x;
  const std::uint32_t height = grid.y * tg.y;
  for (std::uint32_t gz = 0; gz < grid.z * tg.z; ++gz) {
    for (std::uint32_t gy = 0; gy < height; ++gy) {
      for (std::uint32_t gx = 0; gx < width; ++gx) {
        const std::uint32_t* o = &out[((gz * height + gy) * width + gx) * 16];
        const std::uint32_t tx = gx % tg.x, ty = gy % tg.y, tz = gz % tg.z;
        const std::uint32_t linear = tx + ty * tg.x + tz * tg.x * tg.y;
        EXPECT_EQ(o[0], tx);
        EXPECT_EQ(o[1], ty);
        EXPECT_EQ(o[2], tz);
        EXPECT_EQ(o[3], gx / tg.x);
        EXPECT_EQ(o[4], gy / tg.y);
        EXPECT_EQ(o[5], gz / tg.z);
        EXPECT_EQ(o[6], gx);
        EXPECT_EQ(o[7], gy);
        EXPECT_EQ(o[8], gz);
        EXPECT_EQ(o[9], tg.x * 10000 + tg.y * 100 + tg.z);
        EXPECT_EQ(o[10], grid.x * 10000 + grid.y * 100 + grid.z);
        EXPECT_EQ(o[11], linear / 32);
        EXPECT_EQ(o[12], linear % 32);
        EXPECT_EQ(o[13], (tg.volume() + 31) / 32);
        EXPECT_EQ(o[14], gx);
        EXPECT_EQ(o[15], gy);
      }
    }
  }
}

TEST(LaunchTest, BuiltinsIn1D) { check_builtins({3, 1, 1}, {40, 1, 1}); }
TEST(LaunchTest, BuiltinsIn2D) { check_builtins({2, 3, 1}, {8, 6, 1}); }
TEST(LaunchTest, BuiltinsIn3D) { check_builtins({2, 2, 2}, {4, 3, 5}); }

TEST(LaunchTest, RefusesTooManyThreads) {
  std::vector<std::uint32_t> out(16 * 2048);
  LaunchSpec s = spec("test_builtins", {1, 1, 1}, {2048, 1, 1});
  s.buffers[0] = buffer(out);
  try {
    launch(s);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("2048 threads per threadgroup exceed the device limit of 1024"),
        std::string::npos)
        << e.what();
  }
}

TEST(LaunchTest, RefusesUnknownKernelAndUnboundBuffer) {
  EXPECT_THROW(launch(spec("no_such_kernel", {1, 1, 1}, {1, 1, 1})), InputError);
  LaunchSpec s = spec("test_axpy", {1, 1, 1}, {32, 1, 1});
  EXPECT_THROW(launch(s), InputError);
}

}  // namespace
}  // namespace marlin::sim

namespace marlin::sim {
namespace {

TEST(LaunchTest, ShimFunctionsAcceptElementsReadThroughPointers) {
  std::vector<float> x = {-2.0f, 3.0f};
  std::vector<std::uint32_t> w = {0x3C0000F0u, 0x40000030u};  // high halves: 1.0, 2.0
  std::vector<float> out(8);
  LaunchSpec s = testing::spec("test_proxy_calls", {1, 1, 1}, {2, 1, 1});
  s.buffers[0] = testing::buffer(x);
  s.buffers[1] = testing::buffer(w);
  s.buffers[2] = testing::buffer(out);
  launch(s);
  const std::vector<float> expected = {0.0f, 5.0f, 1.0f, 15.0f, 3.0f, 10.0f, 2.0f, 3.0f};
  EXPECT_EQ(out, expected);
}

}  // namespace
}  // namespace marlin::sim

namespace marlin::sim {
namespace {

TEST(LaunchTest, ConstantSpacePointerIsReadAndTracedAsConstant) {
  std::vector<float> table = {1.0f, 2.0f, 3.0f, 4.0f};
  std::vector<float> out(32);
  LaunchSpec s = testing::spec("test_constant_table", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = testing::buffer(table);
  s.buffers[1] = testing::buffer(out);
  const LaunchResult r = launch(s);
  for (std::uint32_t i = 0; i < 32; ++i) EXPECT_EQ(out[i], table[i % 4] * 2.0f);
  // The first op is the index arithmetic `gid % 4` (one int op), then the constant load.
  const auto& ops = r.trace.simdgroups.at(0).ops;
  ASSERT_GE(ops.size(), 2u);
  EXPECT_EQ(ops[0].op, OpClass::kAlu);
  EXPECT_EQ(ops[0].kind, static_cast<std::uint8_t>(AluKind::kIntMul));
  EXPECT_EQ(ops[1].op, OpClass::kDeviceLoad);
  EXPECT_EQ(ops[1].kind, static_cast<std::uint8_t>(Space::kConstant));
}

}  // namespace
}  // namespace marlin::sim
