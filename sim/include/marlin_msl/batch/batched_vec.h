// metal_batch::bvec<T, N>: the batched build's vectors (half2, uint2, ...) in function code,
// N batched components, and as_type between batched scalars and vectors. Each operation is
// metal::vec's (vec.h) on every member: components combined with the batched scalar
// operators and brought back to the element type, half computed in float and rounded once.
// Outside function code (struct members) the vector names stay metal::vec, laid out as Metal
// lays them out.
#pragma once
#pragma GCC system_header

#include <bit>
#include <cstdint>
#include <type_traits>

#include "marlin_msl/batch/batched.h"
#include "marlin_msl/types.h"

namespace metal_batch {

template <class T, int N>
struct bvec;

namespace detail {
template <class T, int N>
struct bvec_storage;
template <class T>
struct bvec_storage<T, 2> {
  union {
    batched<T> data_[2];
    struct {
      batched<T> x, y;
    };
  };
};
template <class T>
struct bvec_storage<T, 3> {
  union {
    batched<T> data_[3];
    struct {
      batched<T> x, y, z;
    };
  };
};
template <class T>
struct bvec_storage<T, 4> {
  union {
    batched<T> data_[4];
    struct {
      batched<T> x, y, z, w;
    };
  };
};

template <class T>
inline constexpr bool kIsBvec = false;
template <class T, int N>
inline constexpr bool kIsBvec<bvec<T, N>> = true;

// A scalar a vector operation broadcasts: plain, batched, or read through a batched pointer.
template <class U>
concept BroadcastScalar = Element<std::remove_cvref_t<U>> || kIsBatched<std::remove_cvref_t<U>> ||
    kIsBatchRef<std::remove_cvref_t<U>>;
}  // namespace detail

template <class T, int N>
struct bvec : detail::bvec_storage<T, N> {
  using value_type = T;
  static constexpr int size = N;

  bvec() = default;
  // Broadcast (implicit, as Metal converts scalars to vectors).
  template <detail::BroadcastScalar U>
  constexpr bvec(const U& s) {  // NOLINT(google-explicit-constructor)
    const batched<T> c = batched<T>(detail::value(s));
    for (int i = 0; i < N; ++i) this->data_[i] = c;
  }
  // From a plain vector (a struct member, a constant): every member the same.
  template <class U>
  constexpr bvec(const ::metal::vec<U, N>& p) {  // NOLINT(google-explicit-constructor)
    for (int i = 0; i < N; ++i) this->data_[i] = batched<T>(static_cast<T>(p[i]));
  }
  // Component-wise from N scalars.
  template <class... A>
  requires(sizeof...(A) == N && N >= 2 &&
           (detail::BroadcastScalar<A> &&
            ...)) constexpr bvec(const A&... parts) {  // NOLINT(google-explicit-constructor)
    int k = 0;
    ((this->data_[k++] = batched<T>(detail::value(parts))), ...);
  }
  // Between element types, component by component.
  template <class U>
  requires(!std::is_same_v<U, T>) explicit constexpr bvec(const bvec<U, N>& o) {
    for (int i = 0; i < N; ++i) this->data_[i] = batched<T>(o[i]);
  }

  constexpr batched<T>& operator[](int i) { return this->data_[i]; }
  constexpr const batched<T>& operator[](int i) const { return this->data_[i]; }

#define MARLIN_BVEC_BINARY(op)                                                     \
  friend constexpr bvec operator op(const bvec& a, const bvec& b) {                \
    bvec r;                                                                        \
    for (int i = 0; i < N; ++i) r.data_[i] = batched<T>(a.data_[i] op b.data_[i]); \
    return r;                                                                      \
  }                                                                                \
  template <detail::BroadcastScalar U>                                             \
  friend constexpr bvec operator op(const bvec& a, const U& s) {                   \
    return a op bvec(s);                                                           \
  }                                                                                \
  template <detail::BroadcastScalar U>                                             \
  friend constexpr bvec operator op(const U& s, const bvec& a) {                   \
    return bvec(s) op a;                                                           \
  }                                                                                \
  template <class U>                                                               \
  constexpr bvec& operator op##=(const U& o) requires requires(bvec v) {           \
    v op o;                                                                        \
  }                                                                                \
  { return *this = *this op o; }
  MARLIN_BVEC_BINARY(+)
  MARLIN_BVEC_BINARY(-)
  MARLIN_BVEC_BINARY(*)
  MARLIN_BVEC_BINARY(/)
  MARLIN_BVEC_BINARY(%)
  MARLIN_BVEC_BINARY(&)
  MARLIN_BVEC_BINARY(|)
  MARLIN_BVEC_BINARY(^)
  MARLIN_BVEC_BINARY(<<)
  MARLIN_BVEC_BINARY(>>)
#undef MARLIN_BVEC_BINARY

  friend constexpr bvec operator-(const bvec& a) {
    bvec r;
    for (int i = 0; i < N; ++i) r.data_[i] = batched<T>(-a.data_[i]);
    return r;
  }
};

// Names the batched build writes for vector types in function code.
#define MARLIN_BATCHED_VECTOR_NAMES(T, name) \
  using counted_##name##2 = bvec<T, 2>;      \
  using counted_##name##3 = bvec<T, 3>;      \
  using counted_##name##4 = bvec<T, 4>;
MARLIN_BATCHED_VECTOR_NAMES(char, char)
MARLIN_BATCHED_VECTOR_NAMES(unsigned char, uchar)
MARLIN_BATCHED_VECTOR_NAMES(short, short)
MARLIN_BATCHED_VECTOR_NAMES(unsigned short, ushort)
MARLIN_BATCHED_VECTOR_NAMES(int, int)
MARLIN_BATCHED_VECTOR_NAMES(unsigned int, uint)
MARLIN_BATCHED_VECTOR_NAMES(long, long)
MARLIN_BATCHED_VECTOR_NAMES(unsigned long, ulong)
MARLIN_BATCHED_VECTOR_NAMES(half, half)
MARLIN_BATCHED_VECTOR_NAMES(float, float)
MARLIN_BATCHED_VECTOR_NAMES(bool, bool)
#undef MARLIN_BATCHED_VECTOR_NAMES

namespace detail {
// The plain type a batched one stands for per member, and member i of a value as that type.
template <class T>
struct member_of {
  using type = std::conditional_t<kIsBatchRef<T>, typename ref_element<T>::type, T>;
};
template <class T>
struct member_of<batched<T>> {
  using type = T;
};
template <class T, int N>
struct member_of<bvec<T, N>> {
  using type = ::metal::vec<T, N>;
};
template <class T>
using member_t = typename member_of<std::remove_cvref_t<T>>::type;

template <class X>
constexpr member_t<X> member(const X& x, std::uint32_t i) {
  if constexpr (kIsBatched<X>) {
    return x.v[i];
  } else if constexpr (kIsBvec<X>) {
    member_t<X> p{};
    for (int c = 0; c < X::size; ++c) p[c] = x[c].v[i];
    return p;
  } else {
    return x;
  }
}
template <class X>
constexpr void set_member(X& x, std::uint32_t i, const member_t<X>& p) {
  if constexpr (kIsBatched<X>) {
    x.v[i] = p;
  } else {
    for (int c = 0; c < X::size; ++c) x[c].v[i] = p[c];
  }
}
}  // namespace detail

// Reinterprets the bits of each member (sizes as in Metal: a half2 is a uint).
template <class To, class From>
requires(sizeof(detail::member_t<To>) == sizeof(detail::member_t<From>)) constexpr To
    as_type(const From& from) {
  using P = detail::member_t<To>;
  constexpr bool kBatchedFrom =
      detail::kIsBatched<From> || detail::kIsBvec<From> || detail::kIsBatchRef<From>;
  if constexpr (!detail::kIsBatched<To> && !detail::kIsBvec<To>) {
    static_assert(!kBatchedFrom, "as_type of a batched value gives a batched type");
    return std::bit_cast<P>(from);
  } else {
    const auto& f = detail::value(from);
    To r;
    for (std::uint32_t i = 0; i < kBatchWidth; ++i) {
      detail::set_member(r, i, std::bit_cast<P>(detail::member(f, i)));
    }
    return r;
  }
}

}  // namespace metal_batch
