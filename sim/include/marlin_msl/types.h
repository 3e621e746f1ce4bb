// Metal scalar and vector type names, as_type<>, and bit-field functions.
//
// Scalar type names are the host's built-in types (only `half` is a class); in function code
// of kernels the pre-pass declares them as metal::counted<T> (counted.h) instead. Vectors are
// metal::vec.
// Metal's `size_t`/`ptrdiff_t` are the host's. `bool` vectors result from comparisons.
#pragma once
#pragma GCC system_header

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "marlin_msl/half.h"
#include "marlin_msl/vec.h"

namespace metal {

using uchar = std::uint8_t;
using ushort = std::uint16_t;
using uint = std::uint32_t;
using ulong = std::uint64_t;
using size_t = std::size_t;
using ptrdiff_t = std::ptrdiff_t;

#define MARLIN_VECTOR_NAMES(T, name) \
  using name##2 = vec<T, 2>;         \
  using name##3 = vec<T, 3>;         \
  using name##4 = vec<T, 4>;
MARLIN_VECTOR_NAMES(bool, bool)
MARLIN_VECTOR_NAMES(char, char)
MARLIN_VECTOR_NAMES(uchar, uchar)
MARLIN_VECTOR_NAMES(short, short)
MARLIN_VECTOR_NAMES(ushort, ushort)
MARLIN_VECTOR_NAMES(int, int)
MARLIN_VECTOR_NAMES(uint, uint)
MARLIN_VECTOR_NAMES(long, long)
MARLIN_VECTOR_NAMES(ulong, ulong)
MARLIN_VECTOR_NAMES(half, half)
MARLIN_VECTOR_NAMES(float, float)
#undef MARLIN_VECTOR_NAMES

static_assert(sizeof(half2) == 4 && alignof(half2) == 4);
static_assert(sizeof(half4) == 8 && alignof(half4) == 8);
static_assert(sizeof(float3) == 16 && sizeof(float4) == 16);
static_assert(std::is_trivially_copyable_v<float4>);

// Reinterprets the bits of a value of the same size (no ALU work). Counted scalars take part
// with their value bits; a counted result keeps a counted argument's chain tag.
template <class To, class From>
requires(sizeof(detail::plain_t<To>) == sizeof(detail::plain_t<From>)) constexpr To
    as_type(const From& from) {
  if constexpr (detail::kIsCounted<From> && detail::kIsCounted<To>) {
    return To::tagged(std::bit_cast<detail::plain_t<To>>(from.v), from.tag);
  } else if constexpr (detail::kIsCounted<From>) {
    return std::bit_cast<To>(from.v);
  } else {
    return To(std::bit_cast<detail::plain_t<To>>(from));
  }
}

// Metal-style conversions between scalar types and vectors of the same width:
// static_cast / functional casts work as in Metal; `convert` is a named spelling.
template <class To, class From>
constexpr To convert(const From& from) {
  return static_cast<To>(from);
}

namespace detail {
template <class T>
inline constexpr bool kIsUnsignedScalar = std::is_integral_v<T>&& std::is_unsigned_v<T>;
}  // namespace detail

// extract_bits(x, offset, bits): bits [offset, offset + bits) of x, zero-extended for
// unsigned and sign-extended for signed x (Metal semantics). bits == 0 gives 0.
template <class T>
requires std::is_integral_v<T>
constexpr T extract_bits(T x, uint offset, uint bits) {
  detail::count(marlin::sim::AluKind::kIntShift);
  using U = std::make_unsigned_t<T>;
  constexpr uint width = sizeof(T) * 8;
  if (bits == 0) return T(0);
  U v = static_cast<U>(static_cast<U>(x) >> offset);
  if (bits < width) {
    const U mask = static_cast<U>((U(1) << bits) - 1);
    v = static_cast<U>(v & mask);
    if constexpr (std::is_signed_v<T>) {
      if ((v >> (bits - 1)) & 1u) v = static_cast<U>(v | static_cast<U>(~mask));
    }
  }
  return static_cast<T>(v);
}

// insert_bits(base, insert, offset, bits): base with bits [offset, offset + bits) replaced
// by the low bits of insert.
template <class T>
requires std::is_integral_v<T>
constexpr T insert_bits(T base, T insert, uint offset, uint bits) {
  detail::count(marlin::sim::AluKind::kIntShift);
  using U = std::make_unsigned_t<T>;
  constexpr uint width = sizeof(T) * 8;
  if (bits == 0) return base;
  const U field = bits >= width ? static_cast<U>(~U(0)) : static_cast<U>((U(1) << bits) - 1);
  const U mask = static_cast<U>(field << offset);
  return static_cast<T>((static_cast<U>(base) & static_cast<U>(~mask)) |
                        (static_cast<U>(static_cast<U>(insert) << offset) & mask));
}

template <class T, int N>
requires std::is_integral_v<T>
constexpr vec<T, N> extract_bits(const vec<T, N>& x, uint offset, uint bits) {
  vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = extract_bits(x[i], offset, bits);
  return r;
}

template <class T>
requires std::is_integral_v<T>
constexpr T popcount(T x) {
  detail::count(marlin::sim::AluKind::kIntLogic);
  return static_cast<T>(std::popcount(static_cast<std::make_unsigned_t<T>>(x)));
}
template <class T>
requires std::is_integral_v<T>
constexpr T clz(T x) {
  detail::count(marlin::sim::AluKind::kIntLogic);
  return static_cast<T>(std::countl_zero(static_cast<std::make_unsigned_t<T>>(x)));
}
template <class T>
requires std::is_integral_v<T>
constexpr T ctz(T x) {
  detail::count(marlin::sim::AluKind::kIntLogic);
  return static_cast<T>(std::countr_zero(static_cast<std::make_unsigned_t<T>>(x)));
}
template <class T>
requires std::is_integral_v<T>
constexpr T reverse_bits(T x) {
  detail::count(marlin::sim::AluKind::kIntLogic);
  using U = std::make_unsigned_t<T>;
  U v = static_cast<U>(x);
  U r = 0;
  for (std::size_t i = 0; i < sizeof(T) * 8; ++i) r = static_cast<U>((r << 1) | ((v >> i) & 1u));
  return static_cast<T>(r);
}

}  // namespace metal
