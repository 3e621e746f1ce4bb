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
//
// Besides its value, a counted scalar carries a marlin::sim::ValueTag: the kind of the counted
// instruction that produced it and how long the chain of instructions of that kind is that
// ends in it in the lane's current ALU segment. An operator's result extends the deepest chain
// of its own kind among its operands, and the lane keeps the longest chain per kind, which the
// trace records as the ALU run's `chain` (docs/trace-format.md, "Dependent chains"). So counted<T>
// is larger than T; its value bits are `v`, and memory (device, constant, threadgroup pointees and
// struct members) keeps the built-in type.
#pragma once
#pragma GCC system_header

#include <algorithm>
#include <array>
#include <cstdint>
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
    std::is_arithmetic_v<std::remove_const_t<T>> || std::is_same_v<std::remove_const_t<T>, half>;

// An operand of a counted operator: arithmetic, half, counted, or such an element read
// through a pointer (loaded first). At least one operand must be counted.
template <class T>
concept CountedOperand = ArithmeticOrCounted<T> || kIsCounted<std::remove_cvref_t<T>> ||
    std::is_same_v<std::remove_cvref_t<T>, half> || kIsLoadableRef<std::remove_cvref_t<T>>;

// Floating types for counting: the built-in ones and half.
template <class T>
inline constexpr bool kIsFloating = std::is_floating_point_v<T> || std::is_same_v<T, half>;
// Operations with a half operand follow half's operators (half.h): the result type is
// decltype(a op b), one instruction of that type's kind is counted and no conversion; they
// are computed here in float without counting.
template <class A, class B>
inline constexpr bool kInvolvesHalf = std::is_same_v<A, half> || std::is_same_v<B, half>;
template <class T>
MARLIN_HOOK constexpr auto in_float(const T& x) {
  if constexpr (std::is_same_v<T, half>) {
    return x.to_float();
  } else {
    return x;
  }
}
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
MARLIN_HOOK constexpr operand_t<T> plain(const T& x) {
  if constexpr (kIsCounted<T>) {
    return x.v;
  } else if constexpr (kIsLoadableRef<T>) {
    return x.load();
  } else {
    return x;
  }
}

// The chain tag of an operand (built-in values and elements read through pointers: none).
template <class T>
MARLIN_HOOK constexpr marlin::sim::ValueTag tag_of(const T& x) {
  if constexpr (kIsCounted<T>) {
    return x.tag;
  } else {
    return {};
  }
}

// Counts one instruction of `kind` whose operands carry `tags`; returns its result's tag.
template <class... Tags>
MARLIN_HOOK constexpr marlin::sim::ValueTag count_chained(marlin::sim::AluKind kind, Tags... tags) {
  if (std::is_constant_evaluated()) return {};
  marlin::sim::LaneContext* lane = marlin::sim::current_lane;
  if (lane == nullptr || !lane->counting) return {};
  marlin::sim::count_alu(kind);
  std::uint32_t depth = 0;
  std::int32_t producer = -1;
  ((depth = std::max(depth, marlin::sim::depth_for(*lane, tags, kind))), ...);
  ((producer = std::max(producer, tags.producer)), ...);
  return marlin::sim::chain_result(*lane, kind, depth, producer);
}

// A built-in arithmetic or half result becomes counted again (bool and vectors stay as they
// are).
template <class R>
MARLIN_HOOK constexpr auto rewrap(R r, marlin::sim::ValueTag tag = {}) {
  if constexpr ((std::is_arithmetic_v<R> && !std::is_same_v<R, bool>) || std::is_same_v<R, half>) {
    return counted<R>::tagged(r, tag);
  } else {
    return r;
  }
}

// Runs `call` (a shim function on the built-in values of `args`) and tags its result: the
// instruction it counted last consumed the arguments. A call that counted nothing passes
// its first counted argument's tag through.
template <class F, class... A>
MARLIN_HOOK constexpr auto call_chained(F call, const A&... args) {
  marlin::sim::LaneContext* lane =
      std::is_constant_evaluated() ? nullptr : marlin::sim::current_lane;
  if (lane == nullptr || !lane->counting) return rewrap(call());
  const std::array<marlin::sim::ValueTag, sizeof...(A)> tags = {tag_of(args)...};
  lane->last_alu = marlin::sim::AluKind::kCount;
  const auto r = call();
  const marlin::sim::AluKind kind = lane->last_alu;
  if (kind == marlin::sim::AluKind::kCount) {
    for (const marlin::sim::ValueTag& t : tags) {
      if (t.segment != 0) return rewrap(r, t);
    }
    return rewrap(r);
  }
  std::uint32_t depth = 0;
  std::int32_t producer = -1;
  for (const marlin::sim::ValueTag& t : tags) {
    depth = std::max(depth, marlin::sim::depth_for(*lane, t, kind));
    producer = std::max(producer, t.producer);
  }
  return rewrap(r, marlin::sim::chain_result(*lane, kind, depth, producer));
}

// The tag of a value converted from From to To: one convert between integer and floating
// types and to or from half, nothing otherwise.
template <class From, class To>
MARLIN_HOOK constexpr marlin::sim::ValueTag converted_tag(marlin::sim::ValueTag tag) {
  if constexpr (kIsFloating<From> != kIsFloating<To> ||
                (!std::is_same_v<From, To> &&
                 (std::is_same_v<From, half> || std::is_same_v<To, half>))) {
    return count_chained(marlin::sim::AluKind::kConvert, tag);
  } else {
    return tag;
  }
}

enum class CountedFamily { kAdd, kMul, kDiv, kLogic, kShift };

// The value of `x` as a To, without counting (the caller counts the conversion).
template <class To, class From>
MARLIN_HOOK constexpr To convert_silently(const From& x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, half>) {
    return half::round(static_cast<float>(x));
  } else if constexpr (std::is_same_v<From, half>) {
    return static_cast<To>(x.to_float());
  } else {
    return static_cast<To>(x);
  }
}

template <class R>
constexpr marlin::sim::AluKind counted_kind(CountedFamily f) {
  using marlin::sim::AluKind;
  if constexpr (std::is_same_v<R, half>) {
    return f == CountedFamily::kMul   ? AluKind::kFp16Mul
           : f == CountedFamily::kDiv ? AluKind::kReciprocal
                                      : AluKind::kFp16Add;
  } else if constexpr (std::is_floating_point_v<R>) {
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
// the compiler converts, not counted. Returns the operand's tag after the conversion.
template <class R, class X>
MARLIN_HOOK constexpr marlin::sim::ValueTag operand_tag(const X& x) {
  if constexpr (std::is_floating_point_v<R> && !std::is_floating_point_v<operand_t<X>> &&
                !std::is_arithmetic_v<std::remove_cvref_t<X>>) {
    return count_chained(marlin::sim::AluKind::kConvert, tag_of(x));
  } else {
    return tag_of(x);
  }
}
}  // namespace detail

template <class T>
struct counted {
  static_assert((std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || std::is_same_v<T, half>,
                "counted<T> wraps integer, floating and half scalars");
  using value_type = T;
  T v;
  marlin::sim::ValueTag tag;

  counted() = default;
  constexpr counted(T x) : v(x) {}  // NOLINT(google-explicit-constructor)
  // A computed value and its chain tag (the operators' results).
  static constexpr counted tagged(T x, marlin::sim::ValueTag t) {
    counted c(x);
    c.tag = t;
    return c;
  }
  // From a built-in value of another type: a literal or constant, converted by the compiler
  // (not counted).
  template <class U>
  requires(std::is_arithmetic_v<U> && !std::is_same_v<U, T>) constexpr counted(U x)  // NOLINT
      : v(detail::convert_silently<T>(x)) {}
  // From another counted type: counted as a convert between integer and floating types.
  template <class U>
  requires(!std::is_same_v<U, T>) constexpr counted(counted<U> x)  // NOLINT
      : v(detail::convert_silently<T>(x.v)), tag(detail::converted_tag<U, T>(x.tag)) {}
  template <class H>
  requires(std::is_same_v<H, half> && !std::is_same_v<T, half>) constexpr counted(H h)  // NOLINT
      : v(detail::convert_silently<T>(h)),
        tag(detail::count_chained(marlin::sim::AluKind::kConvert)) {}
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
    tag = detail::count_chained(detail::counted_kind<T>(detail::CountedFamily::kAdd), tag);
    if constexpr (std::is_same_v<T, half>) {
      v = half::round(v.to_float() + 1.0F);
    } else {
      ++v;
    }
    return *this;
  }
  constexpr counted& operator--() {
    tag = detail::count_chained(detail::counted_kind<T>(detail::CountedFamily::kAdd), tag);
    if constexpr (std::is_same_v<T, half>) {
      v = half::round(v.to_float() - 1.0F);
    } else {
      --v;
    }
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
using counted_half = counted<half>;

// The type the pre-pass gives the index of a loop marked for full unrolling
// (docs/kernel-dialect.md, "Unrolled loops"), `Counted` being the declared counted type. With a
// compile-time trip count (`kConstantTrips`) the compiler unrolls the loop and the index is a
// constant in each copy: the built-in type, so neither the loop's compare and increment nor
// arithmetic on the index alone is counted. Otherwise the loop runs as written, counted.
template <class Counted, bool kConstantTrips>
using unrolled_index = std::conditional_t<kConstantTrips, detail::plain_t<Counted>, Counted>;

// The bound and the stride of that loop, which the pre-pass wraps in this call: for a built-in
// `Index` (an unrolled loop) the built-in value of `x`, so comparing the index with a counted
// constant (`constexpr uint kN = 4;`) counts nothing; otherwise `x` itself.
template <class Index, class X>
MARLIN_HOOK constexpr auto unrolled_bound(const X& x) {
  if constexpr (detail::kIsCounted<Index>) {
    return x;
  } else {
    return detail::plain(x);
  }
}

// ---- binary operators: exact matches for any mix with at least one counted operand --------
// Operands read through pointers are loaded first, so the instruction follows its loads in
// the trace.
#define MARLIN_COUNTED_BINARY(op, family)                                                        \
  template <class A, class B>                                                                    \
  requires detail::CountedArgs<A, B> MARLIN_HOOK constexpr auto operator op(const A& a,          \
                                                                            const B& b) {        \
    using PA = detail::operand_t<A>;                                                             \
    using PB = detail::operand_t<B>;                                                             \
    using R = decltype(PA {} op PB{});                                                           \
    const PA pa = detail::plain(a);                                                              \
    const PB pb = detail::plain(b);                                                              \
    if constexpr (detail::kInvolvesHalf<PA, PB>) {                                               \
      const marlin::sim::ValueTag t =                                                            \
          detail::count_chained(detail::counted_kind<R>(detail::CountedFamily::family),          \
                                detail::tag_of(a), detail::tag_of(b));                           \
      return counted<R>::tagged(                                                                 \
          detail::convert_silently<R>(detail::in_float(pa) op detail::in_float(pb)), t);         \
    } else {                                                                                     \
      const marlin::sim::ValueTag ta = detail::operand_tag<R>(a);                                \
      const marlin::sim::ValueTag tb = detail::operand_tag<R>(b);                                \
      const marlin::sim::ValueTag t =                                                            \
          detail::count_chained(detail::counted_kind<R>(detail::CountedFamily::family), ta, tb); \
      return counted<R>::tagged(static_cast<R>(pa op pb), t);                                    \
    }                                                                                            \
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
#define MARLIN_COUNTED_SHIFT(op)                                                                 \
  template <class A, class B>                                                                    \
  requires detail::CountedArgs<A, B> MARLIN_HOOK constexpr auto operator op(const A& a,          \
                                                                            const B& b) {        \
    using R = decltype(detail::operand_t<A> {} op detail::operand_t<B>{});                       \
    const auto pa = detail::plain(a);                                                            \
    const auto pb = detail::plain(b);                                                            \
    const marlin::sim::ValueTag t = detail::count_chained(marlin::sim::AluKind::kIntShift,       \
                                                          detail::tag_of(a), detail::tag_of(b)); \
    return counted<R>::tagged(static_cast<R>(pa op pb), t);                                      \
  }
MARLIN_COUNTED_SHIFT(<<)
MARLIN_COUNTED_SHIFT(>>)
#undef MARLIN_COUNTED_SHIFT

// Comparisons give a plain bool (logical && || ! on it are not counted).
#define MARLIN_COUNTED_COMPARE(op)                                                        \
  template <class A, class B>                                                             \
  requires detail::CountedArgs<A, B> MARLIN_HOOK constexpr bool operator op(const A& a,   \
                                                                            const B& b) { \
    using PA = detail::operand_t<A>;                                                      \
    using PB = detail::operand_t<B>;                                                      \
    const PA pa = detail::plain(a);                                                       \
    const PB pb = detail::plain(b);                                                       \
    if constexpr (detail::kInvolvesHalf<PA, PB>) {                                        \
      detail::count_chained(marlin::sim::AluKind::kCompareSelect, detail::tag_of(a),      \
                            detail::tag_of(b));                                           \
      return detail::in_float(pa) op detail::in_float(pb);                                \
    } else {                                                                              \
      using C = std::common_type_t<PA, PB>;                                               \
      const marlin::sim::ValueTag ta = detail::operand_tag<C>(a);                         \
      const marlin::sim::ValueTag tb = detail::operand_tag<C>(b);                         \
      detail::count_chained(marlin::sim::AluKind::kCompareSelect, ta, tb);                \
      return pa op pb;                                                                    \
    }                                                                                     \
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
  marlin::sim::ValueTag t = a.tag;
  if constexpr (!detail::kIsFloating<T>) {
    t = detail::count_chained(marlin::sim::AluKind::kIntAdd, a.tag);
  }
  return counted<R>::tagged(static_cast<R>(-a.v), t);
}
template <class T>
constexpr auto operator+(const counted<T>& a) {
  using R = decltype(+a.v);
  return counted<R>::tagged(static_cast<R>(+a.v), a.tag);
}
template <class T>
requires std::is_integral_v<T>
constexpr auto operator~(const counted<T>& a) {
  using R = decltype(~a.v);
  return counted<R>::tagged(static_cast<R>(~a.v),
                            detail::count_chained(marlin::sim::AluKind::kIntLogic, a.tag));
}

}  // namespace metal
