// metal::vec<T, N>: Metal's vector types (half2, float4, uint3, ...), N = 2, 3 or 4.
//
// Layout follows Metal: N * sizeof(T) bytes, aligned to that size, and 3-component vectors
// padded to 4 (sizeof(float3) == 16). Components are fields (.x .y .z .w and .r .g .b .a);
// swizzles (.xy, .zw, .wzyx, ...) are proxy members that convert to vectors and, when no
// component repeats, can be assigned. Element-wise operators count N ALU operations of the
// element type.
#pragma once
#pragma GCC system_header

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "marlin_msl/counted_traits.h"
#include "marlin_msl/half.h"
#include "marlin_msl/swizzle_list.h"

namespace metal {

template <class T, int N>
struct vec;

namespace detail {
template <class T>
inline constexpr bool kIsFloat = std::is_same_v<T, half> || std::is_floating_point_v<T>;

enum class OpFamily { kAdd, kMul, kFma, kLogic, kShift, kCompare, kDiv };

// The ALU kind an operation on elements of type T counts as.
template <class T>
constexpr marlin::sim::AluKind alu_kind(OpFamily f) {
  using marlin::sim::AluKind;
  if (f == OpFamily::kCompare) return AluKind::kCompareSelect;
  if (f == OpFamily::kDiv) return kIsFloat<T> ? AluKind::kReciprocal : AluKind::kIntMul;
  if constexpr (std::is_same_v<T, half>) {
    return f == OpFamily::kMul   ? AluKind::kFp16Mul
           : f == OpFamily::kFma ? AluKind::kFp16Fma
                                 : AluKind::kFp16Add;
  } else if constexpr (std::is_floating_point_v<T>) {
    return f == OpFamily::kMul   ? AluKind::kFp32Mul
           : f == OpFamily::kFma ? AluKind::kFp32Fma
                                 : AluKind::kFp32Add;
  } else {
    return f == OpFamily::kMul || f == OpFamily::kFma ? AluKind::kIntMul
           : f == OpFamily::kLogic                    ? AluKind::kIntLogic
           : f == OpFamily::kShift                    ? AluKind::kIntShift
                                                      : AluKind::kIntAdd;
  }
}

template <class T>
constexpr void count_op(OpFamily f, std::uint32_t n = 1) {
  count(alu_kind<T>(f), n);
}

// Storage slots: 3-component vectors occupy 4.
template <int N>
inline constexpr int kSlots = N == 3 ? 4 : N;

template <class T, int S, int... I>
inline constexpr bool kDistinct = [] {
  int idx[] = {I...};
  for (std::size_t a = 0; a < sizeof...(I); ++a)
    for (std::size_t b = a + 1; b < sizeof...(I); ++b)
      if (idx[a] == idx[b]) return false;
  return true;
}();

// A swizzle overlays the vector's storage and reads/writes the selected components.
template <class T, int S, int... I>
struct swizzle {
  T d_[S];
  using result_type = vec<T, static_cast<int>(sizeof...(I))>;
  constexpr operator result_type() const { return result_type(d_[I]...); }  // NOLINT
  // The implicit copy assignment stays trivial (so vectors stay trivially copyable); it
  // copies the whole storage, which is only right between the same swizzle of the same
  // vector. docs/kernel-dialect.md: write `a.xy = half2(b.xy)`.
  template <int... J>
  requires(sizeof...(J) == sizeof...(I) && kDistinct<T, S, I...>) swizzle& operator=(
      const swizzle<T, S, J...>& other) {
    return *this = static_cast<result_type>(other);
  }
  swizzle& operator=(const result_type& v) requires kDistinct<T, S, I...> {
    int k = 0;
    ((d_[I] = v[k++]), ...);
    return *this;
  }
};

template <class T, int N>
struct vec_storage;

template <class T>
struct vec_storage<T, 2> {
  union {
    T data_[2];
    struct {
      T x, y;
    };
    struct {
      T r, g;
    };
    MARLIN_SWIZZLES_2(T, 2)
  };
};
template <class T>
struct vec_storage<T, 3> {
  union {
    T data_[4];
    struct {
      T x, y, z;
    };
    struct {
      T r, g, b;
    };
    MARLIN_SWIZZLES_3(T, 4)
  };
};
template <class T>
struct vec_storage<T, 4> {
  union {
    T data_[4];
    struct {
      T x, y, z, w;
    };
    struct {
      T r, g, b, a;
    };
    MARLIN_SWIZZLES_4(T, 4)
  };
};

// Scalars a vector operator accepts on either side (broadcast to all components).
template <class U>
concept Scalar = ArithmeticOrCounted<U> || std::is_same_v<plain_t<U>, half>;

template <class T>
struct is_vec : std::false_type {};
template <class T, int N>
struct is_vec<vec<T, N>> : std::true_type {};

template <class T>
struct component_count : std::integral_constant<int, 1> {};
template <class T, int N>
struct component_count<vec<T, N>> : std::integral_constant<int, N> {};
template <class T, int S, int... I>
struct component_count<swizzle<T, S, I...>>
    : std::integral_constant<int, static_cast<int>(sizeof...(I))> {};
}  // namespace detail

template <class T, int N>
struct alignas(sizeof(T) * detail::kSlots<N>) vec : detail::vec_storage<T, N> {
  using value_type = T;
  static constexpr int size = N;

  vec() = default;
  // Broadcast a scalar to all components (implicit, as Metal converts scalars to vectors).
  template <class U>
  requires(detail::ArithmeticOrCounted<U> ||
           std::is_same_v<detail::plain_t<U>, half>) constexpr vec(U s) {  // NOLINT
    const T v = static_cast<T>(s);
    for (int i = 0; i < N; ++i) this->data_[i] = v;
  }
  // Component-wise construction from scalars and smaller vectors: float4(a.xy, 0, 1).
  template <class... A>
  requires(sizeof...(A) >= 2 &&
           (detail::component_count<std::decay_t<A>>::value + ...) ==
               N) constexpr vec(const A&... parts) {  // NOLINT(google-explicit-constructor)
    int k = 0;
    (append(k, parts), ...);
  }
  // Conversion between element types (counts one convert per component).
  template <class U>
  requires(!std::is_same_v<U, T>) explicit constexpr vec(const vec<U, N>& o) {
    detail::count(marlin::sim::AluKind::kConvert, N);
    for (int i = 0; i < N; ++i) this->data_[i] = static_cast<T>(o[i]);
  }

  constexpr T& operator[](int i) { return this->data_[i]; }
  constexpr const T& operator[](int i) const { return this->data_[i]; }

  // ---- element-wise arithmetic --------------------------------------------------------
#define MARLIN_VEC_BINARY(op, family)                                                     \
  friend constexpr vec operator op(const vec& a, const vec& b) {                          \
    detail::count_op<T>(detail::OpFamily::family, N);                                     \
    vec r;                                                                                \
    for (int i = 0; i < N; ++i) r.data_[i] = lower(lift(a.data_[i]) op lift(b.data_[i])); \
    return r;                                                                             \
  }                                                                                       \
  template <detail::Scalar U>                                                             \
  friend constexpr vec operator op(const vec& a, U s) {                                   \
    return a op vec(s);                                                                   \
  }                                                                                       \
  template <detail::Scalar U>                                                             \
  friend constexpr vec operator op(U s, const vec& a) {                                   \
    return vec(s) op a;                                                                   \
  }                                                                                       \
  vec& operator op##=(const vec& b) { return *this = *this op b; }                        \
  template <detail::Scalar U>                                                             \
  vec& operator op##=(U s) {                                                              \
    return *this = *this op vec(s);                                                       \
  }

  MARLIN_VEC_BINARY(+, kAdd)
  MARLIN_VEC_BINARY(-, kAdd)
  MARLIN_VEC_BINARY(*, kMul)
  MARLIN_VEC_BINARY(/, kDiv)

  friend constexpr vec operator-(const vec& a) {
    vec r;
    for (int i = 0; i < N; ++i) r.data_[i] = lower(-lift(a.data_[i]));
    detail::count_op<T>(detail::OpFamily::kAdd, N);
    return r;
  }
  friend constexpr vec operator+(const vec& a) { return a; }

  // Integer-only operators.
#define MARLIN_VEC_INT_BINARY(op, family)                                                         \
  friend constexpr vec operator op(const vec& a, const vec& b) requires std::is_integral_v<T> {   \
    detail::count_op<T>(detail::OpFamily::family, N);                                             \
    vec r;                                                                                        \
    for (int i = 0; i < N; ++i) r.data_[i] = static_cast<T>(a.data_[i] op b.data_[i]);            \
    return r;                                                                                     \
  }                                                                                               \
  template <detail::Scalar U>                                                                     \
  friend constexpr vec operator op(const vec& a, U s) requires std::is_integral_v<T> {            \
    return a op vec(s);                                                                           \
  }                                                                                               \
  vec& operator op##=(const vec& b) requires std::is_integral_v<T> { return *this = *this op b; } \
  template <detail::Scalar U>                                                                     \
  vec& operator op##=(U s) requires std::is_integral_v<T> {                                       \
    return *this = *this op vec(s);                                                               \
  }
  MARLIN_VEC_INT_BINARY(%, kDiv)
  MARLIN_VEC_INT_BINARY(&, kLogic)
  MARLIN_VEC_INT_BINARY(|, kLogic)
  MARLIN_VEC_INT_BINARY(^, kLogic)
  MARLIN_VEC_INT_BINARY(<<, kShift)
  MARLIN_VEC_INT_BINARY(>>, kShift)
#undef MARLIN_VEC_INT_BINARY
#undef MARLIN_VEC_BINARY

  friend constexpr vec operator~(const vec& a) requires std::is_integral_v<T> {
    detail::count_op<T>(detail::OpFamily::kLogic, N);
    vec r;
    for (int i = 0; i < N; ++i) r.data_[i] = static_cast<T>(~a.data_[i]);
    return r;
  }

  // ---- comparisons: component-wise, giving bool vectors --------------------------------
#define MARLIN_VEC_COMPARE(op)                                               \
  friend constexpr vec<bool, N> operator op(const vec& a, const vec& b) {    \
    detail::count_op<T>(detail::OpFamily::kCompare, N);                      \
    vec<bool, N> r;                                                          \
    for (int i = 0; i < N; ++i) r[i] = lift(a.data_[i]) op lift(b.data_[i]); \
    return r;                                                                \
  }
  MARLIN_VEC_COMPARE(==)
  MARLIN_VEC_COMPARE(!=)
  MARLIN_VEC_COMPARE(<)
  MARLIN_VEC_COMPARE(<=)
  MARLIN_VEC_COMPARE(>)
  MARLIN_VEC_COMPARE(>=)
#undef MARLIN_VEC_COMPARE

 private:
  // Element arithmetic without counting (the vector operator counted N operations):
  // half is computed in float and rounded once, small integers through int.
  static constexpr auto lift(T v) {
    if constexpr (std::is_same_v<T, half>) {
      return v.to_float();
    } else {
      return v;
    }
  }
  template <class U>
  static constexpr T lower(U v) {
    if constexpr (std::is_same_v<T, half>) {
      return half::round(v);
    } else {
      return static_cast<T>(v);
    }
  }
  template <class P>
  constexpr void append(int& k, const P& part) {
    using D = std::decay_t<P>;
    if constexpr (detail::component_count<D>::value == 1) {
      this->data_[k++] = static_cast<T>(part);
    } else {
      using V = vec<T, detail::component_count<D>::value>;
      const V v = static_cast<V>(part);
      for (int i = 0; i < V::size; ++i) this->data_[k++] = v[i];
    }
  }
};

}  // namespace metal
