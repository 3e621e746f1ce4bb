// Vector types, swizzles, as_type, bit-field and math functions against plain C++.
#include <gtest/gtest.h>

#include <cmath>
#include <metal_stdlib>

namespace {

using metal::half;

TEST(VectorTest, LayoutFollowsMetal) {
  EXPECT_EQ(sizeof(metal::half2), 4u);
  EXPECT_EQ(sizeof(metal::half3), 8u);
  EXPECT_EQ(sizeof(metal::float3), 16u);
  EXPECT_EQ(alignof(metal::float4), 16u);
  EXPECT_EQ(sizeof(metal::uchar4), 4u);
}

TEST(VectorTest, ComponentsAndSwizzles) {
  metal::float4 v(1.0f, 2.0f, 3.0f, 4.0f);
  EXPECT_EQ(v.x, 1.0f);
  EXPECT_EQ(v.w, 4.0f);
  EXPECT_EQ(v.b, 3.0f);
  const metal::float2 zw = v.zw;
  EXPECT_EQ(zw.x, 3.0f);
  EXPECT_EQ(zw.y, 4.0f);
  const metal::float2 yx = v.yx;
  EXPECT_EQ(yx.x, 2.0f);
  const metal::float4 rev = v.wzyx;
  EXPECT_EQ(rev[0], 4.0f);
  EXPECT_EQ(rev[3], 1.0f);
  v.xy = metal::float2(9.0f, 8.0f);
  EXPECT_EQ(v.x, 9.0f);
  EXPECT_EQ(v.y, 8.0f);
  EXPECT_EQ(v.z, 3.0f);
  const metal::float4 built(v.zw, 5.0f, 6.0f);
  EXPECT_EQ(built[0], 3.0f);
  EXPECT_EQ(built[3], 6.0f);
  const metal::float3 c3 = v.xyz;
  EXPECT_EQ(c3.z, 3.0f);
}

TEST(VectorTest, ArithmeticComparisonSelect) {
  const metal::int4 a(1, -2, 3, -4);
  const metal::int4 b(10, 20, 30, 40);
  const metal::int4 s = a + b;
  EXPECT_EQ(s.y, 18);
  const metal::int4 m = a * 3;
  EXPECT_EQ(m.w, -12);
  const metal::uint2 bits = metal::uint2(0xF0u, 0x0Fu) & metal::uint2(0x3Cu);
  EXPECT_EQ(bits.x, 0x30u);
  EXPECT_EQ(bits.y, 0x0Cu);
  const metal::bool4 gt = a > metal::int4(0);
  EXPECT_TRUE(gt.x);
  EXPECT_FALSE(gt.y);
  EXPECT_TRUE(metal::any(gt));
  EXPECT_FALSE(metal::all(gt));
  const metal::int4 sel = metal::select(b, a, gt);  // gt ? a : b
  EXPECT_EQ(sel.x, 1);
  EXPECT_EQ(sel.y, 20);
  const metal::half2 h = metal::half2(half(1.5f), half(-2.0f)) * metal::half2(half(2.0f));
  EXPECT_EQ(h.x.to_float(), 3.0f);
  EXPECT_EQ(h.y.to_float(), -4.0f);
  const metal::float2 f(h);
  EXPECT_EQ(f.y, -4.0f);
}

TEST(VectorTest, AsTypeReinterpretsBits) {
  // Little-endian: the low 16 bits are component x.
  const metal::half2 h = metal::as_type<metal::half2>(0x3C004000u);
  EXPECT_EQ(h.x.to_float(), 2.0f);
  EXPECT_EQ(h.y.to_float(), 1.0f);
  EXPECT_EQ(metal::as_type<metal::uint>(1.0f), 0x3F800000u);
  // The U4B8 magic-number dequant: (q & 0x000F000F) | 0x64006400 is 1024 + nibble.
  const metal::uint q = 0x00070003u;
  const metal::half2 d =
      metal::as_type<metal::half2>((q & 0x000F000Fu) | 0x64006400u) - metal::half2(half(1024.0f));
  EXPECT_EQ(d.x.to_float(), 3.0f);
  EXPECT_EQ(d.y.to_float(), 7.0f);
}

TEST(VectorTest, ExtractAndInsertBits) {
  EXPECT_EQ(metal::extract_bits(0xABCD1234u, 8u, 8u), 0x12u);
  EXPECT_EQ(metal::extract_bits(0xABCD1234u, 28u, 4u), 0xAu);
  EXPECT_EQ(metal::extract_bits(0xABCD1234u, 0u, 32u), 0xABCD1234u);
  EXPECT_EQ(metal::extract_bits(0x000000F0, 4u, 4u), -1);  // signed: sign-extended
  EXPECT_EQ(metal::extract_bits(0x00000070, 4u, 4u), 7);
  EXPECT_EQ(metal::insert_bits(0xFFFFFFFFu, 0x0u, 8u, 8u), 0xFFFF00FFu);
  EXPECT_EQ(metal::insert_bits(0u, 0x1FFu, 4u, 4u), 0xF0u);  // extra insert bits dropped
  EXPECT_EQ(metal::popcount(0xF0F0u), 8u);
  EXPECT_EQ(metal::clz(1u), 31u);
  EXPECT_EQ(metal::ctz(8u), 3u);
  EXPECT_EQ(metal::reverse_bits(1u), 0x80000000u);
}

TEST(MathTest, FloatAndHalfFunctions) {
  EXPECT_EQ(metal::fma(2.0f, 3.0f, 1.0f), 7.0f);
  EXPECT_EQ(metal::fma(half(0.5f), half(3.0f), half(0.25f)).to_float(), 1.75f);
  EXPECT_EQ(metal::max(1.0f, 2.0f), 2.0f);
  EXPECT_EQ(metal::min(half(1.0f), half(-3.0f)).to_float(), -3.0f);
  EXPECT_EQ(metal::clamp(5, 0, 3), 3);
  EXPECT_EQ(metal::abs(-4), 4);
  EXPECT_EQ(metal::abs(half(-1.5f)).to_float(), 1.5f);
  EXPECT_EQ(metal::floor(-1.5f), -2.0f);
  EXPECT_EQ(metal::ceil(half(1.25f)).to_float(), 2.0f);
  EXPECT_EQ(metal::round(2.5f), 3.0f);  // Metal round: half away from zero
  EXPECT_EQ(metal::rint(2.5f), 2.0f);   // rint: to even
  EXPECT_EQ(metal::sqrt(16.0f), 4.0f);
  EXPECT_EQ(metal::rsqrt(4.0f), 0.5f);
  EXPECT_EQ(metal::exp2(3.0f), 8.0f);
  EXPECT_FLOAT_EQ(metal::exp(1.0f), std::exp(1.0f));
  EXPECT_FLOAT_EQ(metal::log(2.0f), std::log(2.0f));
  EXPECT_EQ(metal::exp(half(0.0f)).to_float(), 1.0f);
  const metal::float4 v = metal::max(metal::float4(1.0f, 5.0f, -1.0f, 0.0f), metal::float4(2.0f));
  EXPECT_EQ(v.y, 5.0f);
  EXPECT_EQ(v.z, 2.0f);
  EXPECT_EQ(metal::dot(metal::float2(1.0f, 2.0f), metal::float2(3.0f, 4.0f)), 11.0f);
  EXPECT_EQ(metal::select(1, 2, true), 2);
  EXPECT_EQ(metal::mix(0.0f, 10.0f, 0.25f), 2.5f);
  EXPECT_EQ(metal::saturate(1.5f), 1.0f);
}

}  // namespace
