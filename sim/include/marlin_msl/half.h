// metal::half: IEEE binary16 with round-to-nearest-even and subnormals, as Metal's `half`.
//
// Storage is GCC's _Float16, so sizeof(half) == 2 and arrays of half are layout-compatible
// with _Float16 host buffers. Every binary16 result is computed in float and rounded once,
// which is exact for +, -, *, / and sqrt (float has more than 2 * 11 + 2 significand bits).
// Arithmetic executed inside a kernel is counted as ALU work (fp16 add/mul/fma, compare,
// convert); constant-evaluated expressions are not counted.
#pragma once
#pragma GCC system_header

#include <bit>
#include <concepts>
#include <cstdint>
#include <type_traits>

#include "marlin_msl/counted_traits.h"
#include "sim/runtime/lane_context.h"

namespace metal {

namespace detail {
// Built-in arithmetic types and counted scalars (metal::counted<T>).
template <class T>
concept Arithmetic = ArithmeticOrCounted<T>;

inline constexpr void count(marlin::sim::AluKind kind, std::uint32_t n = 1) {
  if (!std::is_constant_evaluated()) {
    marlin::sim::count_alu(kind, n);
  }
}
}  // namespace detail

struct half {
  _Float16 value;

  half() = default;
  // Implicit from any arithmetic type, as Metal converts float/int to half implicitly.
  template <detail::Arithmetic T>
  constexpr half(T x) : value(static_cast<_Float16>(x)) {  // NOLINT(google-explicit-constructor)
    detail::count(marlin::sim::AluKind::kConvert);
  }
  constexpr operator float() const {  // NOLINT(google-explicit-constructor)
    detail::count(marlin::sim::AluKind::kConvert);
    return static_cast<float>(value);
  }
  // Raw access without counting (shim internals and tests).
  static constexpr half from_bits(std::uint16_t bits) { return std::bit_cast<half>(bits); }
  constexpr std::uint16_t bits() const { return std::bit_cast<std::uint16_t>(*this); }
  constexpr float to_float() const { return static_cast<float>(value); }
  static constexpr half round(float f) {
    half h;
    h.value = static_cast<_Float16>(f);
    return h;
  }

  half& operator+=(half o) { return *this = *this + o; }
  half& operator-=(half o) { return *this = *this - o; }
  half& operator*=(half o) { return *this = *this * o; }
  half& operator/=(half o) { return *this = *this / o; }
  half& operator++() { return *this += half::round(1.0f); }
  half& operator--() { return *this -= half::round(1.0f); }
  half operator++(int) {
    half old = *this;
    ++*this;
    return old;
  }
  half operator--(int) {
    half old = *this;
    --*this;
    return old;
  }

  friend constexpr half operator+(half a, half b) {
    detail::count(marlin::sim::AluKind::kFp16Add);
    return round(a.to_float() + b.to_float());
  }
  friend constexpr half operator-(half a, half b) {
    detail::count(marlin::sim::AluKind::kFp16Add);
    return round(a.to_float() - b.to_float());
  }
  friend constexpr half operator*(half a, half b) {
    detail::count(marlin::sim::AluKind::kFp16Mul);
    return round(a.to_float() * b.to_float());
  }
  friend constexpr half operator/(half a, half b) {
    detail::count(marlin::sim::AluKind::kReciprocal);
    return round(a.to_float() / b.to_float());
  }
  friend constexpr half operator-(half a) { return from_bits(a.bits() ^ 0x8000u); }
  friend constexpr half operator+(half a) { return a; }

#define MARLIN_HALF_COMPARE(op)                          \
  friend constexpr bool operator op(half a, half b) {    \
    detail::count(marlin::sim::AluKind::kCompareSelect); \
    return a.to_float() op b.to_float();                 \
  }
  MARLIN_HALF_COMPARE(==)
  MARLIN_HALF_COMPARE(!=)
  MARLIN_HALF_COMPARE(<)
  MARLIN_HALF_COMPARE(<=)
  MARLIN_HALF_COMPARE(>)
  MARLIN_HALF_COMPARE(>=)
#undef MARLIN_HALF_COMPARE
};

static_assert(sizeof(half) == 2 && alignof(half) == 2);
static_assert(std::is_trivially_copyable_v<half>);

namespace detail {
// Result of half op T: a floating T (float, double, counted float) wins, an integer converts
// to half.
template <class T>
using HalfPromote = std::conditional_t<std::is_floating_point_v<plain_t<T>>, T, half>;

template <class R>
constexpr void count_arith(bool is_mul) {
  using marlin::sim::AluKind;
  if constexpr (std::is_same_v<R, half>) {
    count(is_mul ? AluKind::kFp16Mul : AluKind::kFp16Add);
  } else {
    count(is_mul ? AluKind::kFp32Mul : AluKind::kFp32Add);
  }
}
}  // namespace detail

// Mixed half/arithmetic operators (exact matches, so they win over built-in candidates).
#define MARLIN_HALF_MIXED(op, is_mul)                              \
  template <detail::Arithmetic T>                                  \
  constexpr detail::HalfPromote<T> operator op(half a, T b) {      \
    using R = detail::HalfPromote<T>;                              \
    detail::count_arith<R>(is_mul);                                \
    if constexpr (std::is_same_v<R, half>) {                       \
      return half::round(a.to_float() op static_cast<float>(b));   \
    } else {                                                       \
      using P = detail::plain_t<T>;                                \
      return R(static_cast<P>(a.to_float()) op static_cast<P>(b)); \
    }                                                              \
  }                                                                \
  template <detail::Arithmetic T>                                  \
  constexpr detail::HalfPromote<T> operator op(T a, half b) {      \
    using R = detail::HalfPromote<T>;                              \
    detail::count_arith<R>(is_mul);                                \
    if constexpr (std::is_same_v<R, half>) {                       \
      return half::round(static_cast<float>(a) op b.to_float());   \
    } else {                                                       \
      using P = detail::plain_t<T>;                                \
      return R(static_cast<P>(a) op static_cast<P>(b.to_float())); \
    }                                                              \
  }
MARLIN_HALF_MIXED(+, false)
MARLIN_HALF_MIXED(-, false)
MARLIN_HALF_MIXED(*, true)
MARLIN_HALF_MIXED(/, true)
#undef MARLIN_HALF_MIXED

#define MARLIN_HALF_MIXED_COMPARE(op)                          \
  template <detail::Arithmetic T>                              \
  constexpr bool operator op(half a, T b) {                    \
    detail::count(marlin::sim::AluKind::kCompareSelect);       \
    return a.to_float() op static_cast<detail::plain_t<T>>(b); \
  }                                                            \
  template <detail::Arithmetic T>                              \
  constexpr bool operator op(T a, half b) {                    \
    detail::count(marlin::sim::AluKind::kCompareSelect);       \
    return static_cast<detail::plain_t<T>>(a) op b.to_float(); \
  }
MARLIN_HALF_MIXED_COMPARE(==)
MARLIN_HALF_MIXED_COMPARE(!=)
MARLIN_HALF_MIXED_COMPARE(<)
MARLIN_HALF_MIXED_COMPARE(<=)
MARLIN_HALF_MIXED_COMPARE(>)
MARLIN_HALF_MIXED_COMPARE(>=)
#undef MARLIN_HALF_MIXED_COMPARE

}  // namespace metal
