// Overloads that let shim functions take elements read through a pointer (`space_ref`
// proxies, e.g. `max(p[i], x)`, `as_type<half2>(w[j])`) by loading them first. Template
// functions cannot deduce their types through the proxy's conversion, so each function
// family gets a forwarding overload constrained to calls with at least one proxy.
#pragma once
#pragma GCC system_header

#include <type_traits>

#include "marlin_msl/address_space.h"
#include "marlin_msl/math.h"
#include "marlin_msl/simd.h"
#include "marlin_msl/types.h"

namespace metal {

namespace detail {
template <class V>
inline constexpr bool kIsRef = false;
template <class T, Space S>
inline constexpr bool kIsRef<space_ref<T, S>> = true;

template <class... V>
concept AnyRef = (kIsRef<std::remove_cvref_t<V>> || ...);

// The loaded value of a proxy; other arguments pass through unchanged.
template <class V>
constexpr decltype(auto) load(const V& v) {
  if constexpr (kIsRef<std::remove_cvref_t<V>>) {
    return v.load();
  } else {
    return (v);
  }
}
}  // namespace detail

template <class To, class T, Space S>
constexpr To as_type(const space_ref<T, S>& from) {
  return as_type<To>(from.load());
}

#define MARLIN_FORWARD_UNARY(name) \
  template <class A>               \
  requires detail::AnyRef<A>       \
  auto name(const A& a) { return name(detail::load(a)); }
#define MARLIN_FORWARD_BINARY(name) \
  template <class A, class B>       \
  requires detail::AnyRef<A, B>     \
  auto name(const A& a, const B& b) { return name(detail::load(a), detail::load(b)); }
#define MARLIN_FORWARD_TERNARY(name)                                \
  template <class A, class B, class C>                              \
  requires detail::AnyRef<A, B, C>                                  \
  auto name(const A& a, const B& b, const C& c) {                   \
    return name(detail::load(a), detail::load(b), detail::load(c)); \
  }

MARLIN_FORWARD_UNARY(exp)
MARLIN_FORWARD_UNARY(exp2)
MARLIN_FORWARD_UNARY(log)
MARLIN_FORWARD_UNARY(log2)
MARLIN_FORWARD_UNARY(sqrt)
MARLIN_FORWARD_UNARY(rsqrt)
MARLIN_FORWARD_UNARY(floor)
MARLIN_FORWARD_UNARY(ceil)
MARLIN_FORWARD_UNARY(round)
MARLIN_FORWARD_UNARY(trunc)
MARLIN_FORWARD_UNARY(fabs)
MARLIN_FORWARD_UNARY(abs)
MARLIN_FORWARD_UNARY(tanh)
MARLIN_FORWARD_UNARY(popcount)
MARLIN_FORWARD_BINARY(min)
MARLIN_FORWARD_BINARY(max)
MARLIN_FORWARD_BINARY(fmin)
MARLIN_FORWARD_BINARY(fmax)
MARLIN_FORWARD_BINARY(pow)
MARLIN_FORWARD_BINARY(dot)
MARLIN_FORWARD_TERNARY(fma)
MARLIN_FORWARD_TERNARY(clamp)
MARLIN_FORWARD_TERNARY(mix)
MARLIN_FORWARD_TERNARY(select)
MARLIN_FORWARD_TERNARY(extract_bits)
#undef MARLIN_FORWARD_UNARY
#undef MARLIN_FORWARD_BINARY
#undef MARLIN_FORWARD_TERNARY

}  // namespace metal
