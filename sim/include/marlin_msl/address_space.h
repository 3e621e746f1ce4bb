// Address-space pointers: what `device T*`, `constant T*` and `threadgroup T*` become after
// the kernel pre-pass (see docs/kernel-dialect.md).
//
// A space_ptr is a raw pointer plus the Region (buffer or threadgroup allocation) it was
// derived from. Dereferencing yields a space_ref proxy: converting it to the element type is
// a load, assigning to it is a store; both go through marlin::sim::access, which checks
// bounds, feeds the threadgroup-memory sanitizer and records the trace. Pointer arithmetic
// is free and unchecked; only accesses are checked.
#pragma once
#pragma GCC system_header

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "sim/runtime/lane_context.h"

namespace metal {

using marlin::sim::Space;

template <class T, Space S>
class space_ptr;

// A reference to one element in device, constant or threadgroup memory.
template <class T, Space S>
class space_ref {
 public:
  using value_type = std::remove_const_t<T>;

  constexpr space_ref(T* p, const marlin::sim::Region* region) : p_(p), region_(region) {}
  space_ref(const space_ref&) = default;

  // Load.
  operator value_type() const {  // NOLINT(google-explicit-constructor)
    return load();
  }
  // Load converted to another type, as `float f = half_pointer[i];` allows in Metal.
  template <class U>
  requires(!std::is_same_v<U, value_type> && std::is_convertible_v<value_type, U>) operator U()
      const {  // NOLINT(google-explicit-constructor)
    return static_cast<U>(load());
  }
  value_type load() const {
    marlin::sim::access(region_, p_, sizeof(T), marlin::sim::AccessKind::kLoad);
    return *p_;
  }
  // Store.
  const space_ref& operator=(const value_type& v) const requires(!std::is_const_v<T>) {
    marlin::sim::access(region_, p_, sizeof(T), marlin::sim::AccessKind::kStore);
    *p_ = v;
    return *this;
  }
  const space_ref& operator=(const space_ref& other) const requires(!std::is_const_v<T>) {
    return *this = other.load();
  }
  template <class U, Space S2>
  const space_ref& operator=(const space_ref<U, S2>& other) const requires(!std::is_const_v<T>) {
    return *this = static_cast<value_type>(other.load());
  }

#define MARLIN_REF_COMPOUND(op)                                                  \
  template <class U>                                                             \
  const space_ref& operator op(const U& u) const requires(!std::is_const_v<T>) { \
    value_type v = load();                                                       \
    v op u;                                                                      \
    return *this = v;                                                            \
  }
  MARLIN_REF_COMPOUND(+=)
  MARLIN_REF_COMPOUND(-=)
  MARLIN_REF_COMPOUND(*=)
  MARLIN_REF_COMPOUND(/=)
  MARLIN_REF_COMPOUND(%=)
  MARLIN_REF_COMPOUND(&=)
  MARLIN_REF_COMPOUND(|=)
  MARLIN_REF_COMPOUND(^=)
  MARLIN_REF_COMPOUND(<<=)
  MARLIN_REF_COMPOUND(>>=)
#undef MARLIN_REF_COMPOUND

  constexpr space_ptr<T, S> operator&() const { return space_ptr<T, S>(p_, region_); }
  constexpr T* raw() const { return p_; }
  constexpr const marlin::sim::Region* region() const { return region_; }

 private:
  T* p_;
  const marlin::sim::Region* region_;
};

template <class T, Space S>
class space_ptr {
 public:
  using element_type = T;
  static constexpr Space space = S;

  constexpr space_ptr() = default;
  constexpr space_ptr(std::nullptr_t) {}  // NOLINT(google-explicit-constructor)
  constexpr space_ptr(T* p, const marlin::sim::Region* region) : p_(p), region_(region) {}
  // T* from U* where C++ allows it implicitly (adding const).
  template <class U>
  requires(!std::is_same_v<U, T> && std::is_convertible_v<U*, T*>) constexpr space_ptr(
      const space_ptr<U, S>& o)  // NOLINT(google-explicit-constructor)
      : p_(o.raw()), region_(o.region()) {}
  // Reinterpretation as another element type: (device const uint4*)p, static_cast.
  template <class U>
  explicit constexpr operator space_ptr<U, S>() const {
    return space_ptr<U, S>(
        reinterpret_cast<U*>(const_cast<std::byte*>(reinterpret_cast<const std::byte*>(p_))),
        region_);
  }

  constexpr space_ref<T, S> operator[](std::ptrdiff_t i) const { return {p_ + i, region_}; }
  constexpr space_ref<T, S> operator*() const { return {p_, region_}; }

  constexpr space_ptr operator+(std::ptrdiff_t i) const { return {p_ + i, region_}; }
  constexpr space_ptr operator-(std::ptrdiff_t i) const { return {p_ - i, region_}; }
  friend constexpr space_ptr operator+(std::ptrdiff_t i, const space_ptr& p) { return p + i; }
  constexpr std::ptrdiff_t operator-(const space_ptr& o) const { return p_ - o.p_; }
  space_ptr& operator+=(std::ptrdiff_t i) {
    p_ += i;
    return *this;
  }
  space_ptr& operator-=(std::ptrdiff_t i) {
    p_ -= i;
    return *this;
  }
  space_ptr& operator++() { return *this += 1; }
  space_ptr& operator--() { return *this -= 1; }
  space_ptr operator++(int) {
    space_ptr old = *this;
    ++p_;
    return old;
  }
  space_ptr operator--(int) {
    space_ptr old = *this;
    --p_;
    return old;
  }
  friend constexpr bool operator==(const space_ptr& a, const space_ptr& b) { return a.p_ == b.p_; }
  friend constexpr auto operator<=>(const space_ptr& a, const space_ptr& b) {
    return a.p_ <=> b.p_;
  }
  explicit constexpr operator bool() const { return p_ != nullptr; }

  constexpr T* raw() const { return p_; }
  constexpr const marlin::sim::Region* region() const { return region_; }

 private:
  T* p_ = nullptr;
  const marlin::sim::Region* region_ = nullptr;
};

template <class T>
using device_ptr = space_ptr<T, Space::kDevice>;
template <class T>
using constant_ptr = space_ptr<const T, Space::kConstant>;
template <class T>
using threadgroup_ptr = space_ptr<T, Space::kThreadgroup>;

// A kernel-scope threadgroup array `threadgroup T name[N]...`: indexing yields sub-arrays
// and finally space_refs; a 1-D array converts to a threadgroup pointer as C arrays decay.
template <class A>
class threadgroup_array;

template <class U, std::size_t N>
class threadgroup_array<U[N]> {
 public:
  using element = std::remove_all_extents_t<U>;
  constexpr threadgroup_array(U* p, const marlin::sim::Region* region) : p_(p), region_(region) {}

  constexpr auto operator[](std::ptrdiff_t i) const {
    if constexpr (std::is_array_v<U>) {
      return threadgroup_array<U>(p_[i], region_);
    } else {
      return space_ref<U, Space::kThreadgroup>(p_ + i, region_);
    }
  }
  constexpr operator threadgroup_ptr<U>() const  // NOLINT(google-explicit-constructor)
      requires(!std::is_array_v<U>) {
    return {p_, region_};
  }
  template <class V>
  requires(!std::is_array_v<U> && !std::is_same_v<V, U> && std::is_convertible_v<U*, V*>) constexpr
  operator threadgroup_ptr<V>() const {  // NOLINT(google-explicit-constructor)
    return {p_, region_};
  }
  constexpr threadgroup_ptr<U> operator+(std::ptrdiff_t i) const requires(!std::is_array_v<U>) {
    return {p_ + i, region_};
  }
  constexpr threadgroup_ptr<U> decay() const requires(!std::is_array_v<U>) { return {p_, region_}; }
  static constexpr std::size_t size() { return N; }

 private:
  U* p_;
  const marlin::sim::Region* region_;
};

namespace detail {
// Views a kernel-scope threadgroup declaration (index in the kernel's layout) as its type.
template <class T>
auto threadgroup_decl(std::uint32_t index, const char* name) {
  const marlin::sim::Region& r = marlin::sim::threadgroup_decl_region(index, name);
  if constexpr (std::is_array_v<T>) {
    using Outer = std::remove_extent_t<T>;
    return threadgroup_array<T>(reinterpret_cast<Outer*>(r.base), &r);
  } else {
    return space_ref<T, Space::kThreadgroup>(reinterpret_cast<T*>(r.base), &r);
  }
}

// Any pointer-like argument of the shim (space_ptr, threadgroup_array) as a space_ptr.
template <class T, Space S>
constexpr space_ptr<T, S> to_ptr(const space_ptr<T, S>& p) {
  return p;
}
template <class U, std::size_t N>
requires(!std::is_array_v<U>) constexpr threadgroup_ptr<U> to_ptr(
    const threadgroup_array<U[N]>& a) {
  return a.decay();
}
}  // namespace detail

// reinterpret_cast spelled by the pre-pass for address-space pointers.
template <class To, class From>
constexpr To reinterpret_pointer(const From& from) {
  if constexpr (std::is_pointer_v<To> && std::is_pointer_v<From>) {
    return reinterpret_cast<To>(from);
  } else {
    return static_cast<To>(detail::to_ptr(from));
  }
}

}  // namespace metal
