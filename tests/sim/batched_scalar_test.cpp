// The batched build's values (marlin_msl/batch/): every operation on a batched scalar or vector
// is, member by member, the plain build's operation on counted scalars and metal vectors, with
// the same result type and the same bits; a batched value converts to a plain one only when
// every member holds the same bits.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <metal_batch_stdlib>
#include <random>
#include <type_traits>

namespace {

using marlin::sim::kBatchWidth;
using metal_batch::batched;

using metal_batch::detail::bits_of;
template <class T>
auto bits(T x) {
  return bits_of(x);
}

// Random members in a range where no operation below is undefined.
template <class T>
batched<T> random_batch(std::mt19937& rng, bool nonzero = false) {
  batched<T> b;
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) {
    if constexpr (std::is_same_v<T, metal::half>) {
      float f = std::uniform_real_distribution<float>(-20.0f, 20.0f)(rng);
      if (nonzero && std::abs(f) < 0.5f) f = 1.5f;
      b.v[i] = metal::half::round(f);
    } else if constexpr (std::is_floating_point_v<T>) {
      T f = std::uniform_real_distribution<T>(-1000, 1000)(rng);
      if (nonzero && f == 0) f = 3;
      b.v[i] = f;
    } else {
      const int lo = std::is_signed_v<T> ? -100 : 0;
      T x = static_cast<T>(std::uniform_int_distribution<int>(lo, 100)(rng));
      if (nonzero && x == 0) x = 7;
      b.v[i] = x;
    }
  }
  return b;
}

// Member i of `r` against the plain build's counted operation `f` on members i of the operands.
template <class R, class F, class... B>
void expect_members(const R& r, F f, const B&... operands) {
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) {
    const auto plain = f(metal::counted<typename B::value_type>(operands.v[i])...);
    using P = std::remove_cvref_t<decltype(metal::detail::plain(plain))>;
    static_assert(std::is_same_v<typename R::value_type, P>, "the result type is the plain one's");
    ASSERT_EQ(bits(r.v[i]), bits(metal::detail::plain(plain))) << "member " << i;
  }
}

template <class A, class B>
void check_arithmetic(std::uint32_t seed) {
  std::mt19937 rng(seed);
  const batched<A> a = random_batch<A>(rng);
  const batched<B> b = random_batch<B>(rng, true);
  expect_members(
      a + b, [](auto x, auto y) { return x + y; }, a, b);
  expect_members(
      a - b, [](auto x, auto y) { return x - y; }, a, b);
  expect_members(
      a * b, [](auto x, auto y) { return x * y; }, a, b);
  expect_members(
      a / b, [](auto x, auto y) { return x / y; }, a, b);
  expect_members(
      a < b, [](auto x, auto y) { return x < y; }, a, b);
  expect_members(
      a == b, [](auto x, auto y) { return x == y; }, a, b);
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
    expect_members(
        a % b, [](auto x, auto y) { return x % y; }, a, b);
    expect_members(
        a & b, [](auto x, auto y) { return x & y; }, a, b);
    expect_members(
        a ^ b, [](auto x, auto y) { return x ^ y; }, a, b);
  }
}

TEST(BatchedScalar, ArithmeticIsTheCountedScalarsMemberByMember) {
  check_arithmetic<unsigned int, unsigned int>(1);
  check_arithmetic<unsigned int, int>(2);
  check_arithmetic<int, int>(3);
  check_arithmetic<unsigned short, unsigned short>(4);
  check_arithmetic<unsigned char, unsigned int>(5);
  check_arithmetic<float, float>(6);
  check_arithmetic<float, unsigned int>(7);
  check_arithmetic<metal::half, metal::half>(8);
  check_arithmetic<metal::half, float>(9);
  check_arithmetic<metal::half, int>(10);
}

TEST(BatchedScalar, ShiftsConversionsAndPlainOperands) {
  std::mt19937 rng(12);
  const batched<unsigned int> w = random_batch<unsigned int>(rng);
  batched<unsigned int> by;
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) by.v[i] = i % 8;
  expect_members(
      w >> by, [](auto x, auto y) { return x >> y; }, w, by);
  expect_members(
      w << by, [](auto x, auto y) { return x << y; }, w, by);
  const batched<unsigned int> masked = (w >> 4u) & 0xFu;
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) EXPECT_EQ(masked.v[i], (w.v[i] >> 4u) & 0xFu);

  const batched<float> f = random_batch<float>(rng);
  const batched<metal::half> h(f);  // rounded once, as counted<half>(counted<float>)
  const batched<int> n(f);
  const batched<float> back(h);
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) {
    const metal::counted<float> c(f.v[i]);
    EXPECT_EQ(h.v[i].bits(), metal::counted<metal::half>(c).v.bits());
    EXPECT_EQ(n.v[i], metal::counted<int>(c).v);
    EXPECT_EQ(bits(back.v[i]), bits(metal::counted<float>(metal::counted<metal::half>(h.v[i])).v));
  }
  // A half literal times a batched half, as the dequantization writes it.
  const batched<metal::half> scaled = h * metal::half::round(16384.0f);
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) {
    EXPECT_EQ(scaled.v[i].bits(),
              (metal::counted<metal::half>(h.v[i]) * metal::half::round(16384.0f)).v.bits());
  }
  batched<unsigned int> k = w;
  ++k;
  k += 3u;
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) EXPECT_EQ(k.v[i], w.v[i] + 4u);
}

TEST(BatchedScalar, VectorsAndBitCastsAreMetalsMemberByMember) {
  std::mt19937 rng(13);
  const batched<unsigned int> words = random_batch<unsigned int>(rng);
  batched<unsigned int> pairs;
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) {
    pairs.v[i] = ((words.v[i] * 2654435761u) & 0x000F000Fu) | 0x64006400u;
  }
  const batched<metal::half> zero = random_batch<metal::half>(rng);
  const batched<metal::half> scale = random_batch<metal::half>(rng);
  const metal_batch::counted_half2 bias =
      metal_batch::counted_half2(metal::half::round(1024.0f) + zero);
  const metal_batch::counted_half2 v =
      (metal_batch::as_type<metal_batch::counted_half2>(pairs) - bias) * scale;
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) {
    const metal::half2 b(metal::half::round(1024.0f) + zero.v[i]);
    const metal::half2 expected = (metal::as_type<metal::half2>(pairs.v[i]) - b) * scale.v[i];
    EXPECT_EQ(v.x.v[i].bits(), expected.x.bits()) << i;
    EXPECT_EQ(v.y.v[i].bits(), expected.y.bits()) << i;
  }
  const batched<unsigned short> raw = metal_batch::as_type<batched<unsigned short>>(scale);
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) EXPECT_EQ(raw.v[i], scale.v[i].bits());
}

TEST(BatchedScalar, FunctionsAreTheShimsOnEveryMember) {
  std::mt19937 rng(14);
  const batched<float> x = random_batch<float>(rng);
  const batched<float> m = metal_batch::max(x, 0.0f);
  const batched<float> t = metal_batch::tanh(x * 0.01f);
  const batched<float> e = metal_batch::exp(-x * 0.01f);
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) {
    EXPECT_EQ(bits(m.v[i]), bits(metal::max(x.v[i], 0.0f)));
    EXPECT_EQ(bits(t.v[i]), bits(metal::tanh(x.v[i] * 0.01f)));
    EXPECT_EQ(bits(e.v[i]), bits(metal::exp(-x.v[i] * 0.01f)));
  }
}

TEST(BatchedScalar, ConvertsToAPlainValueOnlyWhenEveryMemberAgrees) {
  const batched<unsigned int> same(42u);
  EXPECT_EQ(static_cast<unsigned int>(same), 42u);
  EXPECT_TRUE(static_cast<bool>(same == 42u));
  batched<unsigned int> apart = same;
  apart.v[kBatchWidth - 1] = 43u;
  EXPECT_THROW(static_cast<void>(static_cast<unsigned int>(apart)), marlin::sim::BatchAbort);
  EXPECT_THROW(static_cast<void>(static_cast<bool>(apart < 43u)), marlin::sim::BatchAbort);
  // Bits, not values: +0 and -0 differ.
  batched<float> zeros(0.0f);
  zeros.v[3] = -0.0f;
  EXPECT_THROW(static_cast<void>(static_cast<float>(zeros)), marlin::sim::BatchAbort);
}

}  // namespace
