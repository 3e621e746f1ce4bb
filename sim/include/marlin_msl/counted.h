// metal::counted<T>: a built-in scalar (int, uint, float, ...) whose executed operations are
// counted as ALU work. The pre-pass declares kernel variables, function parameters and return
// types of the scalar types with it (docs/kernel-dialect.md gives the exact rule), so index
// arithmetic and bit manipulation are counted from what executes, like half and vector work.
//
// counted<T> behaves like T: same size and layout, implicit conversions to and from T and the
// other arithmetic types, every operator, usable as an array index, in `switch`, and in
// constant expressions (where nothing is counted). Each executed operator counts one lane ALU
// op (docs/trace-format.md): integer + - (and ++ --, unary -) kIntAdd; * / % kIntMul;
// & | ^ ~ kIntLogic; << >> kIntShift; float + - kFp32Add, * kFp32Mul, / kReciprocal;
// comparisons kCompareSelect; a conversion between an integer and a floating type kConvert
// (also when an integer operand meets a float operand). Counting is one increment in the
// lane context (marlin::sim::count_alu); nothing allocates and nothing is virtual.
#pragma once
#pragma GCC system_header

#include <type_traits>

#include "marlin_msl/address_space.h"
#include "marlin_msl/counted_traits.h"
#include "marlin_msl/half.h"

namespace metal {

namespace detail {
template <class V>
inline constexpr bool kIsLoadableRef = false;
template <class T, Space S>
inline constexpr bool kIsLoadableRef<space_ref<T, S>> =
    std::is_arithmetic_v<std::remove_const_t<T>>;

// An operand of a counted operator: arithmetic, counted, or an arithmetic element read
// through a pointer (loaded first). At least one operand must be counted.
template <class T>
concept CountedOperand = ArithmeticOrCounted<T> || kIsLoadableRef<std::remove_cvref_t<T>>;
template <class A, class B>
concept CountedArgs = CountedOperand<A> && CountedOperand<B> &&
    (kIsCounted<std::remove_cvref_t<A>> || kIsCounted<std::remove_cvref_t<B>>);

template <class T>
struct operand_of {
  using type = plain_t<T>;
};
template <class T, Space S>
struct operand_of<space_ref<T, S>> {
  using type = std::remove_const_t<T>;
};
template <class T>
using operand_t = typename operand_of<std::remove_cvref_t<T>>::type;

// The built-in value of an operand (no counting).
template <class T>
constexpr operand_t<T> plain(const T& x) {
  if constexpr (kIsCounted<T>) {
    return x.v;
  } else if constexpr (kIsLoadableRef<T>) {
    return x.load();
  } else {
    return x;
  }
}

template <class From, class To>
constexpr void count_conversion() {
  if constexpr (std::is_floating_point_v<From> != std::is_floating_point_v<To>) {
    count(marlin::sim::AluKind::kConvert);
  }
}

enum class CountedFamily { kAdd, kMul, kDiv, kLogic, kShift };

template <class R>
constexpr marlin::sim::AluKind counted_kind(CountedFamily f) {
  using marlin::sim::AluKind;
  if constexpr (std::is_floating_point_v<R>) {
    return f == CountedFamily::kMul   ? AluKind::kFp32Mul
           : f == CountedFamily::kDiv ? AluKind::kReciprocal
                                      : AluKind::kFp32Add;
  } else {
    return f == CountedFamily::kMul || f == CountedFamily::kDiv ? AluKind::kIntMul
           : f == CountedFamily::kLogic                         ? AluKind::kIntLogic
           : f == CountedFamily::kShift                         ? AluKind::kIntShift
                                                                : AluKind::kIntAdd;
  }
}

// An integer operand meeting a floating one is converted first: one convert when that operand
// is a run-time value (counted or loaded); a plain built-in operand is a literal or a constant
// the compiler converts, not counted.
template <class R, class X>
constexpr void count_operand_conversion() {
  if constexpr (std::is_floating_point_v<R> && !std::is_floating_point_v<operand_t<X>> &&
                !std::is_arithmetic_v<std::remove_cvref_t<X>>) {
    count(marlin::sim::AluKind::kConvert);
  }
}
}  // namespace detail

template <class T>
struct counted {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                "counted<T> wraps integer and floating scalars");
  using value_type = T;
  T v;

  counted() = default;
  constexpr counted(T x) : v(x) {}  // NOLINT(google-explicit-constructor)
  // From a built-in value of another type: a literal or constant, converted by the compiler
  // (not counted).
  template <class U>
  requires(std::is_arithmetic_v<U> && !std::is_same_v<U, T>) constexpr counted(U x)  // NOLINT
      : v(static_cast<T>(x)) {}
  // From another counted type: counted as a convert between integer and floating types.
  template <class U>
  requires(!std::is_same_v<U, T>) constexpr counted(counted<U> x)  // NOLINT
      : v(static_cast<T>(x.v)) {
    detail::count_conversion<U, T>();
  }
  template <class H>
  requires std::is_same_v<H, half>
  constexpr counted(H h)  // NOLINT
      : v(static_cast<T>(h.to_float())) {
    detail::count(marlin::sim::AluKind::kConvert);
  }
  // From a class explicitly convertible to T (static_cast<ulong>(simd_ballot(...))).
  template <class U>
  requires(!std::is_arithmetic_v<U> && !detail::kIsCounted<U> && !std::is_same_v<U, half> &&
           std::is_constructible_v<T, const U&>) explicit constexpr counted(const U& u)
      : v(static_cast<T>(u)) {}
  constexpr operator T() const { return v; }  // NOLINT(google-explicit-constructor)

#define MARLIN_COUNTED_COMPOUND(op)                                            \
  template <class U>                                                           \
  constexpr counted& operator op##=(const U& o) requires requires(counted c) { \
    c op o;                                                                    \
  }                                                                            \
  { return *this = counted(*this op o); }
  MARLIN_COUNTED_COMPOUND(+)
  MARLIN_COUNTED_COMPOUND(-)
  MARLIN_COUNTED_COMPOUND(*)
  MARLIN_COUNTED_COMPOUND(/)
  MARLIN_COUNTED_COMPOUND(%)
  MARLIN_COUNTED_COMPOUND(&)
  MARLIN_COUNTED_COMPOUND(|)
  MARLIN_COUNTED_COMPOUND(^)
  MARLIN_COUNTED_COMPOUND(<<)
  MARLIN_COUNTED_COMPOUND(>>)
#undef MARLIN_COUNTED_COMPOUND

  constexpr counted& operator++() {
    detail::count(detail::counted_kind<T>(detail::CountedFamily::kAdd));
    ++v;
    return *this;
  }
  constexpr counted& operator--() {
    detail::count(detail::counted_kind<T>(detail::CountedFamily::kAdd));
    --v;
    return *this;
  }
  constexpr counted operator++(int) {
    const counted old = *this;
    ++*this;
    return old;
  }
  constexpr counted operator--(int) {
    const counted old = *this;
    --*this;
    return old;
  }
};

static_assert(sizeof(counted<unsigned>) == sizeof(unsigned) &&
              alignof(counted<unsigned>) == alignof(unsigned));
static_assert(std::is_trivially_copyable_v<counted<float>> &&
              std::is_standard_layout_v<counted<float>>);

// Names the pre-pass writes for the scalar types of kernel code.
using counted_char = counted<char>;
using counted_uchar = counted<unsigned char>;
using counted_short = counted<short>;
using counted_ushort = counted<unsigned short>;
using counted_int = counted<int>;
using counted_uint = counted<unsigned int>;
using counted_long = counted<long>;
using counted_ulong = counted<unsigned long>;
using counted_float = counted<float>;

// ---- binary operators: exact matches for any mix with at least one counted operand --------
#define MARLIN_COUNTED_BINARY(op, family)                                    \
  template <class A, class B>                                                \
  requires detail::CountedArgs<A, B>                                         \
  constexpr auto operator op(const A& a, const B& b) {                       \
    using PA = detail::operand_t<A>;                                         \
    using PB = detail::operand_t<B>;                                         \
    using R = decltype(PA {} op PB{});                                       \
    detail::count_operand_conversion<R, A>();                                \
    detail::count_operand_conversion<R, B>();                                \
    detail::count(detail::counted_kind<R>(detail::CountedFamily::family));   \
    return counted<R>(static_cast<R>(detail::plain(a) op detail::plain(b))); \
  }
MARLIN_COUNTED_BINARY(+, kAdd)
MARLIN_COUNTED_BINARY(-, kAdd)
MARLIN_COUNTED_BINARY(*, kMul)
MARLIN_COUNTED_BINARY(/, kDiv)
MARLIN_COUNTED_BINARY(%, kDiv)
MARLIN_COUNTED_BINARY(&, kLogic)
MARLIN_COUNTED_BINARY(|, kLogic)
MARLIN_COUNTED_BINARY(^, kLogic)
#undef MARLIN_COUNTED_BINARY

// Shifts: the result has the (promoted) type of the left operand.
#define MARLIN_COUNTED_SHIFT(op)                                             \
  template <class A, class B>                                                \
  requires detail::CountedArgs<A, B>                                         \
  constexpr auto operator op(const A& a, const B& b) {                       \
    using R = decltype(detail::operand_t<A> {} op detail::operand_t<B>{});   \
    detail::count(marlin::sim::AluKind::kIntShift);                          \
    return counted<R>(static_cast<R>(detail::plain(a) op detail::plain(b))); \
  }
MARLIN_COUNTED_SHIFT(<<)
MARLIN_COUNTED_SHIFT(>>)
#undef MARLIN_COUNTED_SHIFT

// Comparisons give a plain bool (logical && || ! on it are not counted).
#define MARLIN_COUNTED_COMPARE(op)                                            \
  template <class A, class B>                                                 \
  requires detail::CountedArgs<A, B>                                          \
  constexpr bool operator op(const A& a, const B& b) {                        \
    using C = std::common_type_t<detail::operand_t<A>, detail::operand_t<B>>; \
    detail::count_operand_conversion<C, A>();                                 \
    detail::count_operand_conversion<C, B>();                                 \
    detail::count(marlin::sim::AluKind::kCompareSelect);                      \
    return detail::plain(a) op detail::plain(b);                              \
  }
MARLIN_COUNTED_COMPARE(==)
MARLIN_COUNTED_COMPARE(!=)
MARLIN_COUNTED_COMPARE(<)
MARLIN_COUNTED_COMPARE(<=)
MARLIN_COUNTED_COMPARE(>)
MARLIN_COUNTED_COMPARE(>=)
#undef MARLIN_COUNTED_COMPARE

// Unary minus on an integer is an add (negate); on a float it is a free source modifier, as
// for half. ~ is a logic op; unary + is free.
template <class T>
constexpr auto operator-(const counted<T>& a) {
  using R = decltype(-a.v);
  if constexpr (!std::is_floating_point_v<T>) detail::count(marlin::sim::AluKind::kIntAdd);
  return counted<R>(static_cast<R>(-a.v));
}
template <class T>
constexpr auto operator+(const counted<T>& a) {
  using R = decltype(+a.v);
  return counted<R>(static_cast<R>(+a.v));
}
template <class T>
requires std::is_integral_v<T>
constexpr auto operator~(const counted<T>& a) {
  using R = decltype(~a.v);
  detail::count(marlin::sim::AluKind::kIntLogic);
  return counted<R>(static_cast<R>(~a.v));
}

}  // namespace metal
