// Traits of metal::counted<T>, the counted scalar the pre-pass substitutes for `int`, `uint`,
// `float` etc. in kernel code (marlin_msl/counted.h defines it). Declared here so that half
// and vec can accept counted scalars without including counted.h.
#pragma once
#pragma GCC system_header

#include <type_traits>

namespace metal {

template <class T>
struct counted;

namespace detail {
template <class T>
inline constexpr bool kIsCounted = false;
template <class T>
inline constexpr bool kIsCounted<counted<T>> = true;

// The built-in type behind a counted scalar (other types map to themselves).
template <class T>
struct plain_of {
  using type = T;
};
template <class T>
struct plain_of<counted<T>> {
  using type = T;
};
template <class T>
using plain_t = typename plain_of<std::remove_cvref_t<T>>::type;

// A built-in arithmetic type or a counted one (not counted<half>, which behaves as half).
template <class T>
concept ArithmeticOrCounted = std::is_arithmetic_v<std::remove_cvref_t<T>> ||
    (kIsCounted<std::remove_cvref_t<T>>&& std::is_arithmetic_v<plain_t<T>>);
}  // namespace detail

}  // namespace metal
