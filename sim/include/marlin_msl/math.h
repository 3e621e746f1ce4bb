// Metal math, common and relational functions for float, half, integers and vectors.
//
// float results come from the host's <cmath> (correctly rounded or close to it; Metal's
// fast-math variants may differ by a few ulp); half functions compute in float and round
// once. Each call counts ALU work per component: fma as fp16/fp32 fma, min/max/clamp/abs/
// select/sign as compare-select, floor/ceil/round/trunc as convert, transcendental functions,
// sqrt, rsqrt and division as special.
#pragma once
#pragma GCC system_header

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "marlin_msl/types.h"

namespace metal {

namespace detail {
template <class T>
concept FloatScalar = std::is_same_v<T, float> || std::is_same_v<T, half>;

template <class T>
constexpr float lift(T v) {
  if constexpr (std::is_same_v<T, half>) {
    return v.to_float();
  } else {
    return v;
  }
}
template <class T>
constexpr T lower(float v) {
  if constexpr (std::is_same_v<T, half>) {
    return half::round(v);
  } else {
    return v;
  }
}
template <class T>
constexpr marlin::sim::AluKind fma_kind() {
  return std::is_same_v<T, half> ? marlin::sim::AluKind::kFp16Fma : marlin::sim::AluKind::kFp32Fma;
}
}  // namespace detail

// ---- unary float functions (scalar and vector) ------------------------------------------
#define MARLIN_UNARY_FLOAT(name, kind, expr)       \
  template <detail::FloatScalar T>                 \
  inline T name(T v) {                             \
    detail::count(marlin::sim::AluKind::kind);     \
    const float x = detail::lift(v);               \
    return detail::lower<T>(expr);                 \
  }                                                \
  template <detail::FloatScalar T, int N>          \
  inline vec<T, N> name(const vec<T, N>& v) {      \
    vec<T, N> r;                                   \
    for (int i = 0; i < N; ++i) r[i] = name(v[i]); \
    return r;                                      \
  }
MARLIN_UNARY_FLOAT(exp, kSpecial, std::exp(x))
MARLIN_UNARY_FLOAT(exp2, kSpecial, std::exp2(x))
MARLIN_UNARY_FLOAT(exp10, kSpecial, std::pow(10.0f, x))
MARLIN_UNARY_FLOAT(log, kSpecial, std::log(x))
MARLIN_UNARY_FLOAT(log2, kSpecial, std::log2(x))
MARLIN_UNARY_FLOAT(log10, kSpecial, std::log10(x))
MARLIN_UNARY_FLOAT(sqrt, kRsqrt, std::sqrt(x))
MARLIN_UNARY_FLOAT(rsqrt, kRsqrt, 1.0f / std::sqrt(x))
MARLIN_UNARY_FLOAT(sin, kSpecial, std::sin(x))
MARLIN_UNARY_FLOAT(cos, kSpecial, std::cos(x))
MARLIN_UNARY_FLOAT(tan, kSpecial, std::tan(x))
MARLIN_UNARY_FLOAT(tanh, kSpecial, std::tanh(x))
MARLIN_UNARY_FLOAT(floor, kConvert, std::floor(x))
MARLIN_UNARY_FLOAT(ceil, kConvert, std::ceil(x))
MARLIN_UNARY_FLOAT(round, kConvert, std::round(x))
MARLIN_UNARY_FLOAT(rint, kConvert, std::nearbyint(x))
MARLIN_UNARY_FLOAT(trunc, kConvert, std::trunc(x))
MARLIN_UNARY_FLOAT(fract, kConvert, x - std::floor(x))
MARLIN_UNARY_FLOAT(fabs, kCompareSelect, std::fabs(x))
MARLIN_UNARY_FLOAT(saturate, kCompareSelect, std::fmin(std::fmax(x, 0.0f), 1.0f))
MARLIN_UNARY_FLOAT(sign, kCompareSelect, x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x))
#undef MARLIN_UNARY_FLOAT

// ---- binary float functions --------------------------------------------------------------
#define MARLIN_BINARY_FLOAT(name, kind, expr)                     \
  template <detail::FloatScalar T>                                \
  inline T name(T va, T vb) {                                     \
    detail::count(marlin::sim::AluKind::kind);                    \
    const float a = detail::lift(va);                             \
    const float b = detail::lift(vb);                             \
    return detail::lower<T>(expr);                                \
  }                                                               \
  template <detail::FloatScalar T, int N>                         \
  inline vec<T, N> name(const vec<T, N>& a, const vec<T, N>& b) { \
    vec<T, N> r;                                                  \
    for (int i = 0; i < N; ++i) r[i] = name(a[i], b[i]);          \
    return r;                                                     \
  }
MARLIN_BINARY_FLOAT(pow, kSpecial, std::pow(a, b))
MARLIN_BINARY_FLOAT(powr, kSpecial, std::pow(a, b))
MARLIN_BINARY_FLOAT(fmin, kCompareSelect, std::fmin(a, b))
MARLIN_BINARY_FLOAT(fmax, kCompareSelect, std::fmax(a, b))
MARLIN_BINARY_FLOAT(fmod, kSpecial, std::fmod(a, b))
MARLIN_BINARY_FLOAT(copysign, kCompareSelect, std::copysign(a, b))
#undef MARLIN_BINARY_FLOAT

// fma(a, b, c) = a * b + c with one rounding.
template <detail::FloatScalar T>
inline T fma(T a, T b, T c) {
  detail::count(detail::fma_kind<T>());
  if constexpr (std::is_same_v<T, half>) {
    // The exact product of two halves fits in a float; the float sum rounds once more,
    // which stays correctly rounded for binary16 except in rare double-rounding cases.
    return half::round(
        static_cast<float>(static_cast<double>(a.to_float()) * b.to_float() + c.to_float()));
  } else {
    return std::fma(a, b, c);
  }
}
template <detail::FloatScalar T, int N>
inline vec<T, N> fma(const vec<T, N>& a, const vec<T, N>& b, const vec<T, N>& c) {
  vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = fma(a[i], b[i], c[i]);
  return r;
}

// mix(x, y, a) = x + (y - x) * a.
template <detail::FloatScalar T>
inline T mix(T x, T y, T a) {
  detail::count(detail::fma_kind<T>(), 2);
  const float fx = detail::lift(x);
  return detail::lower<T>(fx + (detail::lift(y) - fx) * detail::lift(a));
}

// ---- min / max / clamp / abs for every arithmetic scalar and vectors ----------------------
template <class T>
requires(std::is_arithmetic_v<T> || std::is_same_v<T, half>) constexpr T min(T a, T b) {
  detail::count(marlin::sim::AluKind::kCompareSelect);
  if constexpr (std::is_same_v<T, half>) {
    return half::round(std::fmin(a.to_float(), b.to_float()));
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::fmin(a, b);
  } else {
    return b < a ? b : a;
  }
}
template <class T>
requires(std::is_arithmetic_v<T> || std::is_same_v<T, half>) constexpr T max(T a, T b) {
  detail::count(marlin::sim::AluKind::kCompareSelect);
  if constexpr (std::is_same_v<T, half>) {
    return half::round(std::fmax(a.to_float(), b.to_float()));
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::fmax(a, b);
  } else {
    return a < b ? b : a;
  }
}
template <class T>
requires(std::is_arithmetic_v<T> || std::is_same_v<T, half>) constexpr T clamp(T x, T lo, T hi) {
  return min(max(x, lo), hi);
}
template <class T>
requires(std::is_arithmetic_v<T> || std::is_same_v<T, half>) constexpr T abs(T x) {
  detail::count(marlin::sim::AluKind::kCompareSelect);
  if constexpr (std::is_same_v<T, half>) {
    return half::from_bits(static_cast<std::uint16_t>(x.bits() & 0x7FFFu));
  } else if constexpr (std::is_unsigned_v<T>) {
    return x;
  } else {
    return x < T(0) ? static_cast<T>(-x) : x;
  }
}
template <class T, int N>
constexpr vec<T, N> min(const vec<T, N>& a, const vec<T, N>& b) {
  vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = min(a[i], b[i]);
  return r;
}
template <class T, int N>
constexpr vec<T, N> max(const vec<T, N>& a, const vec<T, N>& b) {
  vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = max(a[i], b[i]);
  return r;
}
template <class T, int N>
constexpr vec<T, N> clamp(const vec<T, N>& x, const vec<T, N>& lo, const vec<T, N>& hi) {
  return min(max(x, lo), hi);
}
template <class T, int N>
constexpr vec<T, N> clamp(const vec<T, N>& x, T lo, T hi) {
  return clamp(x, vec<T, N>(lo), vec<T, N>(hi));
}
template <class T, int N>
constexpr vec<T, N> abs(const vec<T, N>& x) {
  vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = abs(x[i]);
  return r;
}

// dot(a, b): N multiplies folded into fma.
template <detail::FloatScalar T, int N>
inline T dot(const vec<T, N>& a, const vec<T, N>& b) {
  detail::count(detail::fma_kind<T>(), N);
  float s = 0.0f;
  for (int i = 0; i < N; ++i) s += detail::lift(a[i]) * detail::lift(b[i]);
  return detail::lower<T>(s);
}

// ---- relational ----------------------------------------------------------------------------
// select(a, b, c) = c ? b : a, per component for vectors.
template <class T>
constexpr T select(T a, T b, bool c) {
  detail::count(marlin::sim::AluKind::kCompareSelect);
  return c ? b : a;
}
template <class T, int N>
constexpr vec<T, N> select(const vec<T, N>& a, const vec<T, N>& b, const vec<bool, N>& c) {
  detail::count(marlin::sim::AluKind::kCompareSelect, N);
  vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = c[i] ? b[i] : a[i];
  return r;
}
template <int N>
constexpr bool all(const vec<bool, N>& v) {
  for (int i = 0; i < N; ++i)
    if (!v[i]) return false;
  return true;
}
template <int N>
constexpr bool any(const vec<bool, N>& v) {
  for (int i = 0; i < N; ++i)
    if (v[i]) return true;
  return false;
}
constexpr bool all(bool v) { return v; }
constexpr bool any(bool v) { return v; }
template <detail::FloatScalar T>
inline bool isnan(T v) {
  return std::isnan(detail::lift(v));
}
template <detail::FloatScalar T>
inline bool isinf(T v) {
  return std::isinf(detail::lift(v));
}
template <detail::FloatScalar T>
inline bool isfinite(T v) {
  return std::isfinite(detail::lift(v));
}

// Metal's precise:: and fast:: variants map to the same implementations.
namespace precise {
using metal::cos;
using metal::exp;
using metal::exp2;
using metal::log;
using metal::log2;
using metal::pow;
using metal::rsqrt;
using metal::sin;
using metal::sqrt;
using metal::tanh;
}  // namespace precise
namespace fast {
using metal::cos;
using metal::exp;
using metal::exp2;
using metal::log;
using metal::log2;
using metal::pow;
using metal::rsqrt;
using metal::sin;
using metal::sqrt;
using metal::tanh;
}  // namespace fast

}  // namespace metal
