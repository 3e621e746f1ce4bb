// Metal atomics on device (and threadgroup) memory: atomic_uint, atomic_int, atomic_float.
//
// Operations are real host atomics (std::atomic_ref, relaxed), so threadgroups running on
// different host threads contend correctly. Integer results of commutative updates (add,
// sub, min, max, and/or/xor) are identical at any host-thread count; the values returned to
// individual threads and float sums depend on the order threadgroups ran (see
// docs/engine.md). Each operation is one traced atomic access.
#pragma once
#pragma GCC system_header

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "marlin_msl/address_space.h"
#include "marlin_msl/counted_traits.h"

namespace metal {

enum memory_order {
  memory_order_relaxed,
  memory_order_acquire,
  memory_order_release,
  memory_order_acq_rel,
  memory_order_seq_cst,
};

template <class T>
struct atomic {
  static_assert(std::is_same_v<T, int> || std::is_same_v<T, unsigned int> ||
                    std::is_same_v<T, float>,
                "Metal atomics hold int, uint or float");
  T value;
};
using atomic_int = atomic<int>;
using atomic_uint = atomic<unsigned int>;
using atomic_float = atomic<float>;

namespace detail {
template <class T, Space S>
std::atomic_ref<T> atomic_at(const space_ptr<atomic<T>, S>& object) {
  marlin::sim::access(object.region(), object.raw(), sizeof(T), marlin::sim::AccessKind::kAtomic);
  return std::atomic_ref<T>(object.raw()->value);
}
template <class T, Space S>
std::atomic_ref<T> atomic_at(const space_ptr<volatile atomic<T>, S>& object) {
  marlin::sim::access(object.region(), object.raw(), sizeof(T), marlin::sim::AccessKind::kAtomic);
  return std::atomic_ref<T>(const_cast<atomic<T>*>(object.raw())->value);
}
template <class T, class Op>
T update(std::atomic_ref<T> ref, Op op) {
  T old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, op(old), std::memory_order_relaxed)) {
  }
  return old;
}
}  // namespace detail

template <class T, Space S>
T atomic_fetch_add_explicit(space_ptr<atomic<T>, S> object, std::type_identity_t<T> operand,
                            memory_order) {
  return detail::atomic_at(object).fetch_add(operand, std::memory_order_relaxed);
}
template <class T, Space S>
T atomic_fetch_sub_explicit(space_ptr<atomic<T>, S> object, std::type_identity_t<T> operand,
                            memory_order) {
  return detail::atomic_at(object).fetch_sub(operand, std::memory_order_relaxed);
}
template <class T, Space S>
T atomic_fetch_min_explicit(space_ptr<atomic<T>, S> object, std::type_identity_t<T> operand,
                            memory_order) {
  return detail::update(detail::atomic_at(object), [&](T v) { return operand < v ? operand : v; });
}
template <class T, Space S>
T atomic_fetch_max_explicit(space_ptr<atomic<T>, S> object, std::type_identity_t<T> operand,
                            memory_order) {
  return detail::update(detail::atomic_at(object), [&](T v) { return v < operand ? operand : v; });
}
template <class T, Space S>
requires std::is_integral_v<T> T atomic_fetch_and_explicit(space_ptr<atomic<T>, S> object,
                                                           std::type_identity_t<T> operand,
                                                           memory_order) {
  return detail::atomic_at(object).fetch_and(operand, std::memory_order_relaxed);
}
template <class T, Space S>
requires std::is_integral_v<T> T atomic_fetch_or_explicit(space_ptr<atomic<T>, S> object,
                                                          std::type_identity_t<T> operand,
                                                          memory_order) {
  return detail::atomic_at(object).fetch_or(operand, std::memory_order_relaxed);
}
template <class T, Space S>
requires std::is_integral_v<T> T atomic_fetch_xor_explicit(space_ptr<atomic<T>, S> object,
                                                           std::type_identity_t<T> operand,
                                                           memory_order) {
  return detail::atomic_at(object).fetch_xor(operand, std::memory_order_relaxed);
}
template <class T, Space S>
T atomic_exchange_explicit(space_ptr<atomic<T>, S> object, std::type_identity_t<T> desired,
                           memory_order) {
  return detail::atomic_at(object).exchange(desired, std::memory_order_relaxed);
}
template <class T, Space S>
T atomic_load_explicit(space_ptr<atomic<T>, S> object, memory_order) {
  return detail::atomic_at(object).load(std::memory_order_relaxed);
}
template <class T, Space S>
void atomic_store_explicit(space_ptr<atomic<T>, S> object, std::type_identity_t<T> desired,
                           memory_order) {
  detail::atomic_at(object).store(desired, std::memory_order_relaxed);
}
// Weak compare-exchange that never fails spuriously. `expected` is thread memory.
template <class T, Space S>
bool atomic_compare_exchange_weak_explicit(space_ptr<atomic<T>, S> object,
                                           std::type_identity_t<T>* expected,
                                           std::type_identity_t<T> desired, memory_order,
                                           memory_order) {
  return detail::atomic_at(object).compare_exchange_strong(*expected, desired,
                                                           std::memory_order_relaxed);
}

// The same with a counted `expected` (a kernel variable declared `uint expected`).
template <class T, Space S>
bool atomic_compare_exchange_weak_explicit(space_ptr<atomic<T>, S> object,
                                           counted<std::type_identity_t<T>>* expected,
                                           std::type_identity_t<T> desired, memory_order success,
                                           memory_order failure) {
  return atomic_compare_exchange_weak_explicit(object, &expected->v, desired, success, failure);
}

}  // namespace metal
