// Threadgroup memory and barriers: the 16x16 tiled matmul against a CPU reference, and a
// [[threadgroup(n)]] argument reduction.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

struct MatmulParams {
  std::uint32_t m, n, k;
};

// Plain reference: float fma over k in ascending order, rounded to half at the end.
std::vector<_Float16> reference_matmul(const std::vector<_Float16>& a,
                                       const std::vector<_Float16>& b, const MatmulParams& p) {
  std::vector<_Float16> c(p.m * p.n);
  for (std::uint32_t r = 0; r < p.m; ++r) {
    for (std::uint32_t col = 0; col < p.n; ++col) {
      float acc = 0.0f;
      for (std::uint32_t i = 0; i < p.k; ++i) {
        acc =
            std::fma(static_cast<float>(a[r * p.k + i]), static_cast<float>(b[i * p.n + col]), acc);
      }
      c[r * p.n + col] = static_cast<_Float16>(acc);
    }
  }
  return c;
}

LaunchResult run_matmul(const MatmulParams& p, std::vector<_Float16>& c, unsigned host_threads) {
  std::vector<_Float16> a(p.m * p.k);
  std::vector<_Float16> b(p.k * p.n);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<_Float16>(((i * 37) % 17) * 0.125f - 1.0f);
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<_Float16>(((i * 11) % 13) * 0.25f - 1.5f);
  MatmulParams params = p;
  LaunchSpec s = spec("test_matmul_tiled16", {(p.n + 15) / 16, (p.m + 15) / 16, 1}, {16, 16, 1});
  s.buffers[0] = buffer(a);
  s.buffers[1] = buffer(b);
  s.buffers[2] = buffer(c);
  s.buffers[3] = buffer(params);
  s.options.host_threads = host_threads;
  LaunchResult r = launch(s);
  const std::vector<_Float16> ref = reference_matmul(a, b, p);
  for (std::size_t i = 0; i < c.size(); ++i) {
    EXPECT_EQ(static_cast<float>(c[i]), static_cast<float>(ref[i])) << "element " << i;
  }
  return r;
}

TEST(KernelMatmulTest, Tiled16MatchesReferenceOnRaggedShape) {
  const MatmulParams p{37, 29, 45};
  std::vector<_Float16> c(p.m * p.n, static_cast<_Float16>(-7.0f));
  const LaunchResult r = run_matmul(p, c, 1);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.threadgroup_memory_bytes, 2u * 16 * 16 * 2);  // two half[16][16] tiles
}

TEST(KernelMatmulTest, Tiled16IdenticalAtOneAndTwoHostThreads) {
  const MatmulParams p{32, 48, 40};
  std::vector<_Float16> c1(p.m * p.n);
  std::vector<_Float16> c2(p.m * p.n);
  const LaunchResult r1 = run_matmul(p, c1, 1);
  const LaunchResult r2 = run_matmul(p, c2, 2);
  for (std::size_t i = 0; i < c1.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint16_t>(c1[i]), std::bit_cast<std::uint16_t>(c2[i]));
  }
  EXPECT_EQ(r1.trace, r2.trace);
  EXPECT_FALSE(r1.trace.simdgroups.empty());
  EXPECT_EQ(r1.stats.alu_lane_ops, r2.stats.alu_lane_ops);
}

TEST(KernelMatmulTest, ThreadgroupArgumentReduction) {
  const std::uint32_t groups = 5;
  const std::uint32_t threads = 128;
  std::vector<std::uint32_t> in(groups * threads);
  for (std::uint32_t i = 0; i < in.size(); ++i) in[i] = i * 3 + 1;
  std::vector<std::uint32_t> out(groups, 0);
  LaunchSpec s = spec("test_tg_arg_reduce", {groups, 1, 1}, {threads, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  s.threadgroup_lengths[0] = threads * 4;
  const LaunchResult r = launch(s);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.threadgroup_memory_bytes, 512u);
  for (std::uint32_t g = 0; g < groups; ++g) {
    std::uint32_t sum = 0;
    for (std::uint32_t t = 0; t < threads; ++t) sum += (g * threads + t) * 3 + 1;
    EXPECT_EQ(out[g], sum);
  }
}

TEST(KernelMatmulTest, RefusesThreadgroupMemoryOverLimit) {
  std::vector<std::uint32_t> in(128), out(1);
  LaunchSpec s = spec("test_tg_arg_reduce", {1, 1, 1}, {128, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  s.threadgroup_lengths[0] = 40000;
  try {
    launch(s);
    FAIL() << "expected a refusal";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("threadgroup memory of 40000 bytes"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("device limit of 32768 bytes"), std::string::npos);
  }
  s.threadgroup_lengths.clear();
  EXPECT_THROW(launch(s), std::exception);  // the [[threadgroup(0)]] length is required
}

}  // namespace
}  // namespace marlin::sim

namespace marlin::sim {
namespace {

TEST(KernelTemplateTest, EachInstanceHasItsOwnThreadgroupLayout) {
  EXPECT_EQ(threadgroup_memory_bytes("test_template_rotate_32", {}), 32u * 4);
  EXPECT_EQ(threadgroup_memory_bytes("test_template_rotate_64", {}), 64u * 4);
  for (std::uint32_t n : {32u, 64u}) {
    std::vector<float> out(2 * n, -1.0f);
    LaunchSpec s = testing::spec("test_template_rotate_" + std::to_string(n), {2, 1, 1}, {n, 1, 1});
    s.buffers[0] = testing::buffer(out);
    EXPECT_TRUE(launch(s).ok());
    for (std::uint32_t g = 0; g < 2 * n; ++g) {
      EXPECT_EQ(out[g], static_cast<float>(n + (g % n + 1) % n));
    }
  }
}

TEST(KernelTemplateTest, BarrierFreeKernelsRunAsPlainLoop) {
  std::vector<float> x(64, 1.0f), y(64, 0.0f);
  struct {
    std::uint32_t n;
    float alpha;
  } params{64, 1.0f};
  LaunchSpec s = testing::spec("test_axpy", {2, 1, 1}, {32, 1, 1});
  s.buffers[0] = testing::buffer(x);
  s.buffers[1] = testing::buffer(y);
  s.buffers[2] = testing::buffer(params);
  const LaunchResult r = launch(s);
  EXPECT_EQ(r.stats.threadgroups_as_plain_loop, 2u);
  EXPECT_EQ(r.stats.fiber_resumes, 0u);
  std::vector<std::uint32_t> in(64, 1), out(1);
  LaunchSpec t = testing::spec("test_tg_arg_reduce", {1, 1, 1}, {64, 1, 1});
  t.buffers[0] = testing::buffer(in);
  t.buffers[1] = testing::buffer(out);
  t.threadgroup_lengths[0] = 256;
  const LaunchResult rt = launch(t);
  EXPECT_EQ(rt.stats.threadgroups_as_plain_loop, 0u);
  EXPECT_GT(rt.stats.fiber_resumes, 64u);
}

}  // namespace
}  // namespace marlin::sim
