// simdgroup_matrix loads, stores and multiplies against plain C++ references.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

struct MatrixParams {
  std::uint32_t stride, origin_x, origin_y, transpose;
};

struct Variant {
  std::uint32_t ox, oy;
  bool transpose;
};
const Variant kVariants[] = {{0, 0, false}, {0, 0, true},  {3, 5, false},
                             {3, 5, true},  {8, 8, false}, {5, 2, true}};

// Expected matrix element (r, c) of a block loaded from a 16-wide array.
float loaded(const std::vector<_Float16>& in, const Variant& v, int r, int c) {
  const int mr = v.transpose ? c : r;  // memory row offset
  const int mc = v.transpose ? r : c;  // memory column offset
  return static_cast<float>(in[static_cast<std::size_t>((static_cast<int>(v.oy) + mr) * 16 +
                                                        static_cast<int>(v.ox) + mc)]);
}

std::vector<_Float16> source16x16() {
  std::vector<_Float16> in(256);
  for (int i = 0; i < 256; ++i) in[static_cast<std::size_t>(i)] = static_cast<_Float16>(i * 0.5f);
  return in;
}

TEST(SimdgroupMatrixTest, LoadFromDeviceWithOriginStrideTranspose) {
  std::vector<_Float16> in = source16x16();
  for (const Variant& v : kVariants) {
    std::vector<_Float16> out(64, static_cast<_Float16>(-1.0f));
    MatrixParams p{16, v.ox, v.oy, v.transpose ? 1u : 0u};
    LaunchSpec s = spec("test_matrix_load_device", {1, 1, 1}, {32, 1, 1});
    s.buffers[0] = buffer(in);
    s.buffers[1] = buffer(out);
    s.buffers[2] = buffer(p);
    EXPECT_TRUE(launch(s).ok());
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < 8; ++c) {
        EXPECT_EQ(static_cast<float>(out[static_cast<std::size_t>(r * 8 + c)]), loaded(in, v, r, c))
            << "origin (" << v.ox << "," << v.oy << ") transpose " << v.transpose << " at " << r
            << "," << c;
      }
    }
  }
}

TEST(SimdgroupMatrixTest, LoadFromThreadgroupWithOriginStrideTranspose) {
  std::vector<_Float16> in = source16x16();
  for (const Variant& v : kVariants) {
    std::vector<_Float16> out(64, static_cast<_Float16>(-1.0f));
    MatrixParams p{16, v.ox, v.oy, v.transpose ? 1u : 0u};
    LaunchSpec s = spec("test_matrix_threadgroup", {1, 1, 1}, {32, 1, 1});
    s.buffers[0] = buffer(in);
    s.buffers[1] = buffer(out);
    s.buffers[2] = buffer(p);
    EXPECT_TRUE(launch(s).ok());
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < 8; ++c) {
        EXPECT_EQ(static_cast<float>(out[static_cast<std::size_t>(r * 8 + c)]),
                  loaded(in, v, r, c));
      }
    }
  }
}

TEST(SimdgroupMatrixTest, StoreToDeviceWithOriginStrideTranspose) {
  std::vector<float> in(64);
  for (int i = 0; i < 64; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i) + 0.25f;
  for (const Variant& v : kVariants) {
    std::vector<float> out(256, -1.0f);
    MatrixParams p{16, v.ox, v.oy, v.transpose ? 1u : 0u};
    LaunchSpec s = spec("test_matrix_store_device", {1, 1, 1}, {32, 1, 1});
    s.buffers[0] = buffer(in);
    s.buffers[1] = buffer(out);
    s.buffers[2] = buffer(p);
    EXPECT_TRUE(launch(s).ok());
    std::vector<float> expected(256, -1.0f);
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < 8; ++c) {
        // Memory (row oy + r, column ox + c) receives element (r, c), or (c, r) transposed.
        const float value = v.transpose ? in[static_cast<std::size_t>(c * 8 + r)]
                                        : in[static_cast<std::size_t>(r * 8 + c)];
        expected[static_cast<std::size_t>((static_cast<int>(v.oy) + r) * 16 +
                                          static_cast<int>(v.ox) + c)] = value;
      }
    }
    EXPECT_EQ(out, expected) << "origin (" << v.ox << "," << v.oy << ") transpose " << v.transpose;
  }
}

TEST(SimdgroupMatrixTest, MultiplyAccumulateFillAndCopy) {
  std::vector<_Float16> a(64), b(64);
  std::vector<float> c(64), d(64), f(64);
  std::vector<_Float16> e(64);
  for (int i = 0; i < 64; ++i) {
    a[static_cast<std::size_t>(i)] = static_cast<_Float16>((i % 7) * 0.375f - 1.0f);
    b[static_cast<std::size_t>(i)] = static_cast<_Float16>((i % 5) * 0.625f - 0.5f);
    c[static_cast<std::size_t>(i)] = static_cast<float>(i) * 0.125f;
  }
  LaunchSpec s = spec("test_matrix_mma", {1, 1, 1}, {32, 1, 1});
  s.buffers[0] = buffer(a);
  s.buffers[1] = buffer(b);
  s.buffers[2] = buffer(c);
  s.buffers[3] = buffer(d);
  s.buffers[4] = buffer(e);
  s.buffers[5] = buffer(f);
  const LaunchResult r = launch(s);
  EXPECT_TRUE(r.ok());
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      float acc = c[static_cast<std::size_t>(i * 8 + j)];
      float prod = 0.0f;
      for (int k = 0; k < 8; ++k) {
        const float x = static_cast<float>(a[static_cast<std::size_t>(i * 8 + k)]);
        const float y = static_cast<float>(b[static_cast<std::size_t>(k * 8 + j)]);
        acc = std::fma(x, y, acc);
        prod = std::fma(x, y, prod);
      }
      EXPECT_EQ(d[static_cast<std::size_t>(i * 8 + j)], acc);
      EXPECT_EQ(static_cast<float>(e[static_cast<std::size_t>(i * 8 + j)]),
                static_cast<float>(static_cast<_Float16>(prod)));
      // filled(2) * A: row i of the result is 2 * (sum over k of A[k][j]).
      float col = 0.0f;
      for (int k = 0; k < 8; ++k) {
        col = std::fma(2.0f, static_cast<float>(a[static_cast<std::size_t>(k * 8 + j)]), col);
      }
      EXPECT_EQ(f[static_cast<std::size_t>(i * 8 + j)], col);
    }
  }
}

TEST(SimdgroupMatrixTest, TiledGemmWithFourSimdgroups) {
  struct {
    std::uint32_t m, n, k;
  } p{32, 48, 64};
  std::vector<_Float16> a(p.m * p.k), b(p.k * p.n);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<_Float16>(((i * 7) % 11) * 0.25f - 1.0f);
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<_Float16>(((i * 5) % 9) * 0.5f - 2.0f);
  std::vector<float> c(p.m * p.n, -99.0f);
  LaunchSpec s = spec("test_matrix_gemm", {p.n / 16, p.m / 16, 1}, {128, 1, 1});
  s.buffers[0] = buffer(a);
  s.buffers[1] = buffer(b);
  s.buffers[2] = buffer(c);
  s.buffers[3] = buffer(p);
  const LaunchResult r = launch(s);
  EXPECT_TRUE(r.ok());
  for (std::uint32_t i = 0; i < p.m; ++i) {
    for (std::uint32_t j = 0; j < p.n; ++j) {
      float acc = 0.0f;
      for (std::uint32_t k = 0; k < p.k; ++k) {
        acc = std::fma(static_cast<float>(a[i * p.k + k]), static_cast<float>(b[k * p.n + j]), acc);
      }
      EXPECT_EQ(c[i * p.n + j], acc) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace marlin::sim
