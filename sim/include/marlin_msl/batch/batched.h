// metal_batch::batched<T>: a scalar of a kernel running a batch of alike threadgroups as one
// (sim/runtime/batch_lane.h), one element per member. The batched build of a kernel (the
// pre-pass's --batch output) declares its scalars with it where the plain build declares
// metal::counted<T>, and every operation is that of counted<T> (counted.h) applied member by
// member, without counting: integer and float operators in the built-in types, operators with
// a half operand computed in float and rounded once, the same conversions, comparisons giving
// batched<bool>. So a batch computes, bit for bit, what each member computes alone.
//
// A batched value converts implicitly to T (`if`, array indices, `switch`, a T parameter)
// only when every member holds the same bits; otherwise the members would take different
// paths, and the conversion stops the batch (BatchAbort), whose threadgroups then run one by
// one. The batched shim accepts what the batched kernels use (docs/engine.md, "Copies in
// batches"); anything else fails to compile in the batched build only.
#pragma once
#pragma GCC system_header

#include <bit>
#include <cstdint>
#include <type_traits>

#include "marlin_msl/counted.h"
#include "marlin_msl/half.h"
#include "sim/runtime/batch_lane.h"

namespace metal_batch {

using marlin::sim::kBatchWidth;
using ::metal::half;

template <class T>
struct batched;

namespace detail {
template <class T>
inline constexpr bool kIsBatched = false;
template <class T>
inline constexpr bool kIsBatched<batched<T>> = true;

// Elements read through a batched pointer (batched_memory.h specializes both): an operand
// that is loaded first, and the element type it loads.
template <class T>
inline constexpr bool kIsBatchRef = false;
template <class T>
struct ref_element {
  using type = T;
};

template <class T>
struct plain_of {
  using type = T;
};
template <class T>
struct plain_of<batched<T>> {
  using type = T;
};
// The element type of a batched value (other types map to themselves).
template <class T>
using plain_t = typename plain_of<std::remove_cvref_t<T>>::type;

// The element type an operand contributes to an operation.
template <class T>
using operand_t =
    std::conditional_t<kIsBatchRef<std::remove_cvref_t<T>>,
                       typename ref_element<std::remove_cvref_t<T>>::type, plain_t<T>>;

template <class T>
concept Element = std::is_arithmetic_v<T> || std::is_same_v<T, half>;

template <class T>
concept Operand = Element<std::remove_cvref_t<T>> || kIsBatched<std::remove_cvref_t<T>> ||
    kIsBatchRef<std::remove_cvref_t<T>>;
// An operation the batched operators take: at least one operand batched or read through a
// batched pointer.
template <class A, class B>
concept BatchArgs = Operand<A> && Operand<B> &&
    (kIsBatched<std::remove_cvref_t<A>> || kIsBatched<std::remove_cvref_t<B>> ||
     kIsBatchRef<std::remove_cvref_t<A>> || kIsBatchRef<std::remove_cvref_t<B>>);

// An operand as a value: batched values as they are, loaded ones loaded, plain ones plain.
template <class T>
constexpr decltype(auto) value(const T& x) {
  if constexpr (kIsBatchRef<T>) {
    return x.load();
  } else {
    return (x);
  }
}
// Member i of an operand's value (a plain value is every member's).
template <class T>
constexpr auto at(const T& x, std::uint32_t i) {
  if constexpr (kIsBatched<T>) {
    return x.v[i];
  } else {
    return x;
  }
}

// The bits of an element, for the uniformity test (NaNs and signed zeros compare as bits).
template <class T>
constexpr auto bits_of(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x;
  } else if constexpr (sizeof(T) == 1) {
    return std::bit_cast<std::uint8_t>(x);
  } else if constexpr (sizeof(T) == 2) {
    return std::bit_cast<std::uint16_t>(x);
  } else if constexpr (sizeof(T) == 4) {
    return std::bit_cast<std::uint32_t>(x);
  } else {
    return std::bit_cast<std::uint64_t>(x);
  }
}

using ::metal::detail::convert_silently;
using ::metal::detail::in_float;
using ::metal::detail::kInvolvesHalf;
}  // namespace detail

template <class T>
struct batched {
  static_assert(detail::Element<T>, "batched<T> holds integer, floating, half and bool scalars");
  using value_type = T;
  T v[kBatchWidth];

  batched() = default;
  constexpr batched(T x) {  // NOLINT(google-explicit-constructor)
    for (std::uint32_t i = 0; i < kBatchWidth; ++i) v[i] = x;
  }
  // From a built-in value of another type (a literal or constant) or half: converted as
  // counted<T> converts it.
  template <class U>
  requires(detail::Element<U> && !std::is_same_v<U, T>) constexpr batched(U x)  // NOLINT
      : batched(detail::convert_silently<T>(x)) {}
  // From another batched type, member by member.
  template <class U>
  requires(!std::is_same_v<U, T>) constexpr batched(const batched<U>& o) {  // NOLINT
    for (std::uint32_t i = 0; i < kBatchWidth; ++i) v[i] = detail::convert_silently<T>(o.v[i]);
  }

  // The value every member holds; stops the batch when they differ.
  constexpr T uniform() const {
    for (std::uint32_t i = 1; i < kBatchWidth; ++i) {
      if (detail::bits_of(v[i]) != detail::bits_of(v[0])) {
        marlin::sim::batch_abort(
            "the batch's threadgroups hold different values where one is needed");
      }
    }
    return v[0];
  }
  constexpr operator T() const { return uniform(); }  // NOLINT(google-explicit-constructor)

#define MARLIN_BATCHED_COMPOUND(op)                                            \
  template <class U>                                                           \
  constexpr batched& operator op##=(const U& o) requires requires(batched c) { \
    c op o;                                                                    \
  }                                                                            \
  { return *this = batched(*this op o); }
  MARLIN_BATCHED_COMPOUND(+)
  MARLIN_BATCHED_COMPOUND(-)
  MARLIN_BATCHED_COMPOUND(*)
  MARLIN_BATCHED_COMPOUND(/)
  MARLIN_BATCHED_COMPOUND(%)
  MARLIN_BATCHED_COMPOUND(&)
  MARLIN_BATCHED_COMPOUND(|)
  MARLIN_BATCHED_COMPOUND(^)
  MARLIN_BATCHED_COMPOUND(<<)
  MARLIN_BATCHED_COMPOUND(>>)
#undef MARLIN_BATCHED_COMPOUND

  constexpr batched& operator++() { return step(1); }
  constexpr batched& operator--() { return step(-1); }
  constexpr batched operator++(int) {
    const batched old = *this;
    step(1);
    return old;
  }
  constexpr batched operator--(int) {
    const batched old = *this;
    step(-1);
    return old;
  }

 private:
  constexpr batched& step(int by) {
    for (std::uint32_t i = 0; i < kBatchWidth; ++i) {
      if constexpr (std::is_same_v<T, half>) {
        v[i] = half::round(v[i].to_float() + static_cast<float>(by));
      } else {
        v[i] = static_cast<T>(v[i] + static_cast<T>(by));
      }
    }
    return *this;
  }
};

static_assert(std::is_trivially_copyable_v<batched<float>> &&
              std::is_standard_layout_v<batched<float>>);

// The names the batched build writes where the plain build writes metal::counted_*.
using counted_char = batched<char>;
using counted_uchar = batched<unsigned char>;
using counted_short = batched<short>;
using counted_ushort = batched<unsigned short>;
using counted_int = batched<int>;
using counted_uint = batched<unsigned int>;
using counted_long = batched<long>;
using counted_ulong = batched<unsigned long>;
using counted_float = batched<float>;
using counted_half = batched<half>;

// The batched build's spelling of a template type parameter in function code (the pre-pass
// writes batched_t<T> for it): a scalar type becomes batched, any other type stays.
template <class T>
using batched_t = std::conditional_t<detail::Element<T>, batched<T>, T>;

// The index of a loop marked for full unrolling, as metal::unrolled_index (counted.h): the
// built-in type with a compile-time trip count, else the batched one.
template <class Batched, bool kConstantTrips>
using unrolled_index = std::conditional_t<kConstantTrips, detail::plain_t<Batched>, Batched>;
template <class Index, class X>
constexpr auto unrolled_bound(const X& x) {
  if constexpr (detail::kIsBatched<Index>) {
    return x;
  } else {
    return static_cast<detail::plain_t<X>>(x);
  }
}

// ---- operators: member by member, with the result type and rounding of counted<T> -------
#define MARLIN_BATCHED_BINARY(op)                                                         \
  template <class A, class B>                                                             \
  requires detail::BatchArgs<A, B>                                                        \
  constexpr auto operator op(const A& a, const B& b) {                                    \
    using PA = detail::operand_t<A>;                                                      \
    using PB = detail::operand_t<B>;                                                      \
    using R = decltype(PA {} op PB{});                                                    \
    const auto& va = detail::value(a);                                                    \
    const auto& vb = detail::value(b);                                                    \
    batched<R> r;                                                                         \
    for (std::uint32_t i = 0; i < kBatchWidth; ++i) {                                     \
      const PA x = detail::at(va, i);                                                     \
      const PB y = detail::at(vb, i);                                                     \
      if constexpr (detail::kInvolvesHalf<PA, PB>) {                                      \
        r.v[i] = detail::convert_silently<R>(detail::in_float(x) op detail::in_float(y)); \
      } else {                                                                            \
        r.v[i] = static_cast<R>(x op y);                                                  \
      }                                                                                   \
    }                                                                                     \
    return r;                                                                             \
  }
MARLIN_BATCHED_BINARY(+)
MARLIN_BATCHED_BINARY(-)
MARLIN_BATCHED_BINARY(*)
MARLIN_BATCHED_BINARY(/)
MARLIN_BATCHED_BINARY(%)
MARLIN_BATCHED_BINARY(&)
MARLIN_BATCHED_BINARY(|)
MARLIN_BATCHED_BINARY(^)
MARLIN_BATCHED_BINARY(<<)
MARLIN_BATCHED_BINARY(>>)
#undef MARLIN_BATCHED_BINARY

#define MARLIN_BATCHED_COMPARE(op)                           \
  template <class A, class B>                                \
  requires detail::BatchArgs<A, B>                           \
  constexpr auto operator op(const A& a, const B& b) {       \
    using PA = detail::operand_t<A>;                         \
    using PB = detail::operand_t<B>;                         \
    const auto& va = detail::value(a);                       \
    const auto& vb = detail::value(b);                       \
    batched<bool> r;                                         \
    for (std::uint32_t i = 0; i < kBatchWidth; ++i) {        \
      const PA x = detail::at(va, i);                        \
      const PB y = detail::at(vb, i);                        \
      if constexpr (detail::kInvolvesHalf<PA, PB>) {         \
        r.v[i] = detail::in_float(x) op detail::in_float(y); \
      } else {                                               \
        r.v[i] = x op y;                                     \
      }                                                      \
    }                                                        \
    return r;                                                \
  }
MARLIN_BATCHED_COMPARE(==)
MARLIN_BATCHED_COMPARE(!=)
MARLIN_BATCHED_COMPARE(<)
MARLIN_BATCHED_COMPARE(<=)
MARLIN_BATCHED_COMPARE(>)
MARLIN_BATCHED_COMPARE(>=)
#undef MARLIN_BATCHED_COMPARE

template <class T>
constexpr auto operator-(const batched<T>& a) {
  using R = decltype(-a.v[0]);
  batched<R> r;
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) r.v[i] = static_cast<R>(-a.v[i]);
  return r;
}
template <class T>
constexpr auto operator+(const batched<T>& a) {
  using R = decltype(+a.v[0]);
  return batched<R>(a);
}
template <class T>
requires std::is_integral_v<T>
constexpr auto operator~(const batched<T>& a) {
  using R = decltype(~a.v[0]);
  batched<R> r;
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) r.v[i] = static_cast<R>(~a.v[i]);
  return r;
}

}  // namespace metal_batch
