// Overloads that let the shim's math, integer and relational functions take counted scalars
// (metal::counted<T>): the call runs on the built-in values (the function counts its own ALU
// work, as for built-in arguments) and an arithmetic or half result comes back counted, tagged
// by detail::call_chained (counted.h) as the result of the instruction the function counted
// last. min, max, clamp and select first bring their operands to a common type, as Metal does
// for a literal mixed with a variable (`min(i, 8)`).
#pragma once
#pragma GCC system_header

#include <type_traits>

#include "marlin_msl/counted.h"
#include "marlin_msl/math.h"
#include "marlin_msl/proxy_overloads.h"
#include "marlin_msl/types.h"

namespace metal {

namespace detail {
template <class... A>
concept AnyCounted = (kIsCounted<std::remove_cvref_t<A>> || ...);
template <class... A>
concept CountedCall = AnyCounted<A...> && !AnyRef<A...>;
}  // namespace detail

#define MARLIN_COUNTED_FORWARD(name)                                                        \
  template <class... A>                                                                     \
  requires detail::CountedCall<A...>                                                        \
  constexpr auto name(const A&... a)->decltype(detail::rewrap(name(detail::plain(a)...))) { \
    return detail::call_chained([&] { return name(detail::plain(a)...); }, a...);           \
  }
MARLIN_COUNTED_FORWARD(exp)
MARLIN_COUNTED_FORWARD(exp2)
MARLIN_COUNTED_FORWARD(exp10)
MARLIN_COUNTED_FORWARD(log)
MARLIN_COUNTED_FORWARD(log2)
MARLIN_COUNTED_FORWARD(log10)
MARLIN_COUNTED_FORWARD(sqrt)
MARLIN_COUNTED_FORWARD(rsqrt)
MARLIN_COUNTED_FORWARD(sin)
MARLIN_COUNTED_FORWARD(cos)
MARLIN_COUNTED_FORWARD(tan)
MARLIN_COUNTED_FORWARD(tanh)
MARLIN_COUNTED_FORWARD(floor)
MARLIN_COUNTED_FORWARD(ceil)
MARLIN_COUNTED_FORWARD(round)
MARLIN_COUNTED_FORWARD(rint)
MARLIN_COUNTED_FORWARD(trunc)
MARLIN_COUNTED_FORWARD(fract)
MARLIN_COUNTED_FORWARD(fabs)
MARLIN_COUNTED_FORWARD(saturate)
MARLIN_COUNTED_FORWARD(sign)
MARLIN_COUNTED_FORWARD(pow)
MARLIN_COUNTED_FORWARD(powr)
MARLIN_COUNTED_FORWARD(fmin)
MARLIN_COUNTED_FORWARD(fmax)
MARLIN_COUNTED_FORWARD(fmod)
MARLIN_COUNTED_FORWARD(copysign)
MARLIN_COUNTED_FORWARD(fma)
MARLIN_COUNTED_FORWARD(mix)
MARLIN_COUNTED_FORWARD(abs)
MARLIN_COUNTED_FORWARD(isnan)
MARLIN_COUNTED_FORWARD(isinf)
MARLIN_COUNTED_FORWARD(isfinite)
MARLIN_COUNTED_FORWARD(popcount)
MARLIN_COUNTED_FORWARD(clz)
MARLIN_COUNTED_FORWARD(ctz)
MARLIN_COUNTED_FORWARD(reverse_bits)
MARLIN_COUNTED_FORWARD(extract_bits)
#undef MARLIN_COUNTED_FORWARD

// Functions whose value operands share one type: computed in the common built-in type.
template <class A, class B>
requires detail::CountedCall<A, B>
constexpr auto min(const A& a, const B& b) {
  using C = std::common_type_t<detail::plain_t<A>, detail::plain_t<B>>;
  return detail::call_chained([&] { return min(C(detail::plain(a)), C(detail::plain(b))); }, a, b);
}
template <class A, class B>
requires detail::CountedCall<A, B>
constexpr auto max(const A& a, const B& b) {
  using C = std::common_type_t<detail::plain_t<A>, detail::plain_t<B>>;
  return detail::call_chained([&] { return max(C(detail::plain(a)), C(detail::plain(b))); }, a, b);
}
template <class X, class L, class H>
requires detail::CountedCall<X, L, H>
constexpr auto clamp(const X& x, const L& lo, const H& hi) {
  using C = std::common_type_t<detail::plain_t<X>, detail::plain_t<L>, detail::plain_t<H>>;
  return detail::call_chained(
      [&] { return clamp(C(detail::plain(x)), C(detail::plain(lo)), C(detail::plain(hi))); }, x, lo,
      hi);
}
template <class A, class B>
requires detail::CountedCall<A, B>
constexpr auto select(const A& a, const B& b, bool c) {
  using C = std::common_type_t<detail::plain_t<A>, detail::plain_t<B>>;
  return detail::call_chained([&] { return select(C(detail::plain(a)), C(detail::plain(b)), c); },
                              a, b);
}
template <class B, class I, class O, class N>
requires detail::CountedCall<B, I, O, N>
constexpr auto insert_bits(const B& base, const I& insert, const O& offset, const N& bits) {
  using C = detail::plain_t<B>;
  return detail::call_chained(
      [&] {
        return insert_bits(C(detail::plain(base)), C(detail::plain(insert)),
                           uint(detail::plain(offset)), uint(detail::plain(bits)));
      },
      base, insert, offset, bits);
}

}  // namespace metal
