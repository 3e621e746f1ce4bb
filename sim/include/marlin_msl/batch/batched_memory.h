// The batched build's address-space pointers: metal_batch::space_ptr holds one address per
// member of the batch and the region of member 0 (a buffer, which every member shares, or a
// threadgroup allocation, each member's `stride` bytes after the previous one's). As with
// metal::space_ptr (address_space.h), arithmetic is free and unchecked and dereferencing
// yields a space_ref whose load or store checks every member's address against its region; an
// address outside it stops the batch (its threadgroups then run one by one, and the engine's
// own bounds check reports it). Nothing is traced.
#pragma once
#pragma GCC system_header

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "marlin_msl/batch/batched.h"
#include "sim/runtime/batch_lane.h"

namespace metal_batch {

using marlin::sim::Space;

template <class T, Space S>
class space_ptr;
template <class T, Space S>
class space_ref;

namespace detail {
template <class T, Space S>
inline constexpr bool kIsBatchRef<space_ref<T, S>> = Element<std::remove_const_t<T>>;
template <class T, Space S>
struct ref_element<space_ref<T, S>> {
  using type = std::remove_const_t<T>;
};

// Member i's part of an index: a plain index is every member's.
template <class I>
constexpr std::ptrdiff_t index_at(const I& i, std::uint32_t b) {
  return static_cast<std::ptrdiff_t>(at(value(i), b));
}

// Stops the batch unless each member's `bytes` at p[b] lie in its region.
template <class T>
void check_members(T* const* p, const marlin::sim::Region* region, std::ptrdiff_t stride,
                   std::size_t bytes) {
  if (region == nullptr) marlin::sim::batch_abort("an access through a null pointer");
  bool outside = false;
  for (std::uint32_t b = 0; b < kBatchWidth; ++b) {
    const std::byte* lo = region->base + static_cast<std::ptrdiff_t>(b) * stride;
    const auto* a = reinterpret_cast<const std::byte*>(p[b]);
    outside |= a < lo || a + bytes > lo + region->bytes;
  }
  if (outside) marlin::sim::batch_abort("an access outside its buffer or declaration");
}
}  // namespace detail

// One element per member in device, constant or threadgroup memory.
template <class T, Space S>
class space_ref {
 public:
  using value_type = std::remove_const_t<T>;

  space_ref(T* const* p, const marlin::sim::Region* region, std::ptrdiff_t stride)
      : region_(region), stride_(stride) {
    for (std::uint32_t b = 0; b < kBatchWidth; ++b) p_[b] = p[b];
  }
  space_ref(const space_ref&) = default;

  batched<value_type> load() const {
    detail::check_members(p_, region_, stride_, sizeof(T));
    batched<value_type> r;
    for (std::uint32_t b = 0; b < kBatchWidth; ++b) r.v[b] = *p_[b];
    return r;
  }
  operator batched<value_type>() const { return load(); }  // NOLINT(google-explicit-constructor)
  // Loaded and converted, as `float f = half_pointer[i];`.
  template <class U>
  requires(!std::is_same_v<U, value_type> && detail::Element<U>) operator batched<U>()
      const {  // NOLINT(google-explicit-constructor)
    return batched<U>(load());
  }

  const space_ref& operator=(const batched<value_type>& v) const requires(!std::is_const_v<T>) {
    detail::check_members(p_, region_, stride_, sizeof(T));
    for (std::uint32_t b = 0; b < kBatchWidth; ++b) *p_[b] = v.v[b];
    return *this;
  }
  template <class U>
  requires(detail::Operand<U> && !std::is_const_v<T>) const space_ref& operator=(const U& u) const {
    return *this = batched<value_type>(detail::value(u));
  }
  const space_ref& operator=(const space_ref& other) const requires(!std::is_const_v<T>) {
    return *this = other.load();
  }

#define MARLIN_BATCH_REF_COMPOUND(op)                                            \
  template <class U>                                                             \
  const space_ref& operator op(const U& u) const requires(!std::is_const_v<T>) { \
    batched<value_type> v = load();                                              \
    v op u;                                                                      \
    return *this = v;                                                            \
  }
  MARLIN_BATCH_REF_COMPOUND(+=)
  MARLIN_BATCH_REF_COMPOUND(-=)
  MARLIN_BATCH_REF_COMPOUND(*=)
  MARLIN_BATCH_REF_COMPOUND(/=)
  MARLIN_BATCH_REF_COMPOUND(%=)
  MARLIN_BATCH_REF_COMPOUND(&=)
  MARLIN_BATCH_REF_COMPOUND(|=)
  MARLIN_BATCH_REF_COMPOUND(^=)
  MARLIN_BATCH_REF_COMPOUND(<<=)
  MARLIN_BATCH_REF_COMPOUND(>>=)
#undef MARLIN_BATCH_REF_COMPOUND

  space_ptr<T, S> operator&() const { return space_ptr<T, S>(p_, region_, stride_); }

 private:
  T* p_[kBatchWidth];
  const marlin::sim::Region* region_;
  std::ptrdiff_t stride_;
};

template <class T, Space S>
class space_ptr {
 public:
  using element_type = T;
  static constexpr Space space = S;

  space_ptr() = default;
  space_ptr(std::nullptr_t) {}  // NOLINT(google-explicit-constructor)
  // Member 0's address; member b's is `stride * b` bytes further.
  space_ptr(T* first, const marlin::sim::Region* region, std::ptrdiff_t stride)
      : region_(region), stride_(stride) {
    for (std::uint32_t b = 0; b < kBatchWidth; ++b) {
      p_[b] = reinterpret_cast<T*>(
          reinterpret_cast<std::byte*>(const_cast<std::remove_const_t<T>*>(first)) +
          static_cast<std::ptrdiff_t>(b) * stride);
    }
  }
  space_ptr(T* const* members, const marlin::sim::Region* region, std::ptrdiff_t stride)
      : region_(region), stride_(stride) {
    for (std::uint32_t b = 0; b < kBatchWidth; ++b) p_[b] = members[b];
  }
  // T* from U* where C++ allows it implicitly (adding const).
  template <class U>
  requires(!std::is_same_v<U, T> && std::is_convertible_v<U*, T*>)
      space_ptr(const space_ptr<U, S>& o)  // NOLINT(google-explicit-constructor)
      : region_(o.region()), stride_(o.stride()) {
    for (std::uint32_t b = 0; b < kBatchWidth; ++b) p_[b] = o.member(b);
  }
  // Reinterpretation as another element type.
  template <class U>
  explicit operator space_ptr<U, S>() const {
    U* members[kBatchWidth];
    for (std::uint32_t b = 0; b < kBatchWidth; ++b) {
      members[b] =
          reinterpret_cast<U*>(const_cast<std::byte*>(reinterpret_cast<const std::byte*>(p_[b])));
    }
    return space_ptr<U, S>(members, region_, stride_);
  }

  template <class I>
  space_ref<T, S> operator[](const I& i) const {
    return space_ref<T, S>((*this + i).p_, region_, stride_);
  }
  space_ref<T, S> operator*() const { return space_ref<T, S>(p_, region_, stride_); }

  template <class I>
  requires(!std::is_same_v<I, space_ptr>) space_ptr operator+(const I& i) const {
    space_ptr r = *this;
    for (std::uint32_t b = 0; b < kBatchWidth; ++b) r.p_[b] += detail::index_at(i, b);
    return r;
  }
  template <class I>
  requires(!std::is_same_v<I, space_ptr>) friend space_ptr operator+(const I& i,
                                                                     const space_ptr& p) {
    return p + i;
  }
  template <class I>
  requires(!std::is_same_v<I, space_ptr>) space_ptr operator-(const I& i) const {
    space_ptr r = *this;
    for (std::uint32_t b = 0; b < kBatchWidth; ++b) r.p_[b] -= detail::index_at(i, b);
    return r;
  }
  template <class I>
  space_ptr& operator+=(const I& i) {
    return *this = *this + i;
  }
  template <class I>
  space_ptr& operator-=(const I& i) {
    return *this = *this - i;
  }
  space_ptr& operator++() { return *this += 1; }
  space_ptr& operator--() { return *this -= 1; }

  T* member(std::uint32_t b) const { return p_[b]; }
  const marlin::sim::Region* region() const { return region_; }
  std::ptrdiff_t stride() const { return stride_; }

 private:
  T* p_[kBatchWidth] = {};
  const marlin::sim::Region* region_ = nullptr;
  std::ptrdiff_t stride_ = 0;
};

// A kernel-scope threadgroup array, one per member: indexing yields sub-arrays and finally
// space_refs; a 1-D array converts to a threadgroup pointer as C arrays decay.
template <class A>
class threadgroup_array;

template <class U, std::size_t N>
class threadgroup_array<U[N]> {
 public:
  using element = std::remove_all_extents_t<U>;
  threadgroup_array(U* const* members, const marlin::sim::Region* region, std::ptrdiff_t stride)
      : region_(region), stride_(stride) {
    for (std::uint32_t b = 0; b < kBatchWidth; ++b) p_[b] = members[b];
  }

  template <class I>
  auto operator[](const I& i) const {
    if constexpr (std::is_array_v<U>) {
      std::remove_extent_t<U>* rows[kBatchWidth];
      for (std::uint32_t b = 0; b < kBatchWidth; ++b) rows[b] = p_[b][detail::index_at(i, b)];
      return threadgroup_array<U>(rows, region_, stride_);
    } else {
      return decay()[i];
    }
  }
  operator space_ptr<U, Space::kThreadgroup>() const  // NOLINT(google-explicit-constructor)
      requires(!std::is_array_v<U>) {
    return decay();
  }
  template <class V>
  requires(!std::is_array_v<U> && !std::is_same_v<V, U> && std::is_convertible_v<U*, V*>)
  operator space_ptr<V, Space::kThreadgroup>() const {  // NOLINT(google-explicit-constructor)
    return decay();
  }
  template <class I>
  space_ptr<U, Space::kThreadgroup> operator+(const I& i) const requires(!std::is_array_v<U>) {
    return decay() + i;
  }
  space_ptr<U, Space::kThreadgroup> decay() const requires(!std::is_array_v<U>) {
    return space_ptr<U, Space::kThreadgroup>(p_, region_, stride_);
  }
  static constexpr std::size_t size() { return N; }

 private:
  U* p_[kBatchWidth];
  const marlin::sim::Region* region_;
  std::ptrdiff_t stride_;
};

namespace detail {
// Views kernel-scope threadgroup declaration `index` of every member as its type.
template <class T>
auto threadgroup_decl(std::uint32_t index, const char*) {
  const marlin::sim::BatchRegion r = marlin::sim::batch_decl_region(index);
  if constexpr (std::is_array_v<T>) {
    using Outer = std::remove_extent_t<T>;
    Outer* members[kBatchWidth];
    for (std::uint32_t b = 0; b < kBatchWidth; ++b) {
      members[b] = reinterpret_cast<Outer*>(r.region->base +
                                            static_cast<std::ptrdiff_t>(b) * r.member_stride);
    }
    return threadgroup_array<T>(members, r.region, r.member_stride);
  } else {
    return *space_ptr<T, Space::kThreadgroup>(reinterpret_cast<T*>(r.region->base), r.region,
                                              r.member_stride);
  }
}

template <class T, Space S>
space_ptr<T, S> to_ptr(const space_ptr<T, S>& p) {
  return p;
}
template <class U, std::size_t N>
requires(!std::is_array_v<U>) space_ptr<U, Space::kThreadgroup> to_ptr(
    const threadgroup_array<U[N]>& a) {
  return a.decay();
}
}  // namespace detail

// reinterpret_cast spelled by the pre-pass for address-space pointers.
template <class To, class From>
To reinterpret_pointer(const From& from) {
  if constexpr (std::is_pointer_v<To> && std::is_pointer_v<From>) {
    return reinterpret_cast<To>(from);
  } else {
    return static_cast<To>(detail::to_ptr(from));
  }
}

}  // namespace metal_batch
