// Argument binding for the batched entry points the pre-pass's --batch output emits (the
// batched counterparts of binding.h): buffers become batched pointers every member shares,
// [[threadgroup(n)]] arguments each member's own allocation, built-ins batched values (each
// member's threadgroup position; the thread's position is the same in every member).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <metal_batch_stdlib>
#include <type_traits>
#include <vector>

#include "sim/runtime/batch_lane.h"
#include "sim/runtime/batch_registry.h"
#include "sim/runtime/binding.h"

namespace marlin::sim {

// A reference binds as in the plain build; a pointer holds every member's address.
template <class P>
P bind_batch_region(const Region& r, const char* name, std::uint32_t index,
                    std::ptrdiff_t member_stride) {
  if constexpr (std::is_reference_v<P>) {
    return bind_region<P>(r, name, index);
  } else {
    using T = typename P::element_type;
    return P(reinterpret_cast<T*>(r.base), &r, member_stride);
  }
}

template <class P>
P bind_batch_buffer(BatchBindContext& c, std::uint32_t index, const char* name) {
  if constexpr (!std::is_reference_v<P>) {
    if constexpr (P::space == Space::kConstant) {
      return bind_batch_region<P>((*c.constant_buffers)[index], name, index, 0);
    }
  }
  return bind_batch_region<P>((*c.buffers)[index], name, index, 0);
}

template <class P>
P bind_batch_threadgroup(BatchBindContext& c, std::uint32_t index, const char* name) {
  return bind_batch_region<P>((*c.threadgroup_args)[index], name, index, c.member_stride);
}

template <class P>
P bind_batch_builtin(BatchBindContext& c, Builtin b) {
  const BatchLane& l = *c.lane;
  std::array<std::array<std::uint32_t, 3>, kBatchWidth> v{};  // per member
  for (std::uint32_t m = 0; m < kBatchWidth; ++m) {
    v[m] = builtin_value(b, {l.thread_in_threadgroup, (*l.threadgroup_in_grid)[m],
                             l.threads_per_threadgroup, l.threadgroups_per_grid, l.linear_id,
                             l.simdgroup, l.lane, l.simdgroups_per_threadgroup});
  }
  using T = std::remove_cvref_t<P>;
  T r;
  if constexpr (metal_batch::detail::kIsBvec<T>) {
    using E = typename T::value_type;
    for (int d = 0; d < T::size; ++d) {
      for (std::uint32_t m = 0; m < kBatchWidth; ++m) r[d].v[m] = static_cast<E>(v[m][d]);
    }
  } else {
    using E = typename T::value_type;
    for (std::uint32_t m = 0; m < kBatchWidth; ++m) r.v[m] = static_cast<E>(v[m][0]);
  }
  return r;
}

}  // namespace marlin::sim
