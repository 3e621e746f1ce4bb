// The batched build's math, integer and relational functions: each is the plain shim's
// function (math.h, types.h) called on every member, so its result is the plain build's bit
// for bit. min, max, clamp and select bring their operands to a common type first, as the
// counted overloads do (counted_functions.h).
#pragma once
#pragma GCC system_header

#include <cstdint>
#include <type_traits>

#include "marlin_msl/batch/batched.h"
#include "marlin_msl/math.h"
#include "marlin_msl/types.h"

namespace metal_batch {

namespace detail {
template <class... A>
concept AnyBatch = ((kIsBatched<std::remove_cvref_t<A>> || kIsBatchRef<std::remove_cvref_t<A>>) ||
                    ...);

// f applied to member i of every value, for every member.
template <class F, class... V>
auto map_members(F f, const V&... v) {
  using R = decltype(f(at(v, 0)...));
  batched<R> r;
  for (std::uint32_t i = 0; i < kBatchWidth; ++i) r.v[i] = f(at(v, i)...);
  return r;
}
}  // namespace detail

#define MARLIN_BATCHED_FORWARD(name)                                          \
  template <class... A>                                                       \
  requires detail::AnyBatch<A...>                                             \
  auto name(const A&... a) {                                                  \
    return detail::map_members([](auto... x) { return ::metal::name(x...); }, \
                               detail::value(a)...);                          \
  }
MARLIN_BATCHED_FORWARD(exp)
MARLIN_BATCHED_FORWARD(exp2)
MARLIN_BATCHED_FORWARD(exp10)
MARLIN_BATCHED_FORWARD(log)
MARLIN_BATCHED_FORWARD(log2)
MARLIN_BATCHED_FORWARD(log10)
MARLIN_BATCHED_FORWARD(sqrt)
MARLIN_BATCHED_FORWARD(rsqrt)
MARLIN_BATCHED_FORWARD(sin)
MARLIN_BATCHED_FORWARD(cos)
MARLIN_BATCHED_FORWARD(tan)
MARLIN_BATCHED_FORWARD(tanh)
MARLIN_BATCHED_FORWARD(floor)
MARLIN_BATCHED_FORWARD(ceil)
MARLIN_BATCHED_FORWARD(round)
MARLIN_BATCHED_FORWARD(rint)
MARLIN_BATCHED_FORWARD(trunc)
MARLIN_BATCHED_FORWARD(fract)
MARLIN_BATCHED_FORWARD(fabs)
MARLIN_BATCHED_FORWARD(saturate)
MARLIN_BATCHED_FORWARD(sign)
MARLIN_BATCHED_FORWARD(pow)
MARLIN_BATCHED_FORWARD(powr)
MARLIN_BATCHED_FORWARD(fmin)
MARLIN_BATCHED_FORWARD(fmax)
MARLIN_BATCHED_FORWARD(fmod)
MARLIN_BATCHED_FORWARD(copysign)
MARLIN_BATCHED_FORWARD(fma)
MARLIN_BATCHED_FORWARD(mix)
MARLIN_BATCHED_FORWARD(abs)
MARLIN_BATCHED_FORWARD(popcount)
MARLIN_BATCHED_FORWARD(clz)
MARLIN_BATCHED_FORWARD(ctz)
MARLIN_BATCHED_FORWARD(reverse_bits)
MARLIN_BATCHED_FORWARD(extract_bits)
#undef MARLIN_BATCHED_FORWARD

// Functions whose value operands share one type: computed in the common built-in type.
#define MARLIN_BATCHED_COMMON(name)                     \
  template <class... A>                                 \
  requires detail::AnyBatch<A...>                       \
  auto name(const A&... a) {                            \
    return detail::map_members(                         \
        [](auto... x) {                                 \
          using C = std::common_type_t<decltype(x)...>; \
          return ::metal::name(C(x)...);                \
        },                                              \
        detail::value(a)...);                           \
  }
MARLIN_BATCHED_COMMON(min)
MARLIN_BATCHED_COMMON(max)
MARLIN_BATCHED_COMMON(clamp)
#undef MARLIN_BATCHED_COMMON

template <class A, class B, class C>
requires detail::AnyBatch<A, B, C>
auto select(const A& a, const B& b, const C& c) {
  return detail::map_members(
      [](auto x, auto y, bool z) {
        using T = std::common_type_t<decltype(x), decltype(y)>;
        return ::metal::select(T(x), T(y), z);
      },
      detail::value(a), detail::value(b), detail::value(c));
}

}  // namespace metal_batch
