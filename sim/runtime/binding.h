// Argument binding for generated kernel entry points: the pre-pass emits, for each kernel,
// an entry function that calls the kernel with bind_buffer / bind_threadgroup /
// bind_builtin for each parameter, by its attribute.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "marlin_msl/address_space.h"
#include "marlin_msl/types.h"
#include "sim/runtime/lane_context.h"

namespace marlin::sim {

enum class Builtin : std::uint8_t {
  kThreadPositionInThreadgroup,
  kThreadgroupPositionInGrid,
  kThreadPositionInGrid,
  kThreadsPerThreadgroup,
  kThreadgroupsPerGrid,
  kThreadsPerGrid,
  kThreadIndexInThreadgroup,
  kSimdgroupIndexInThreadgroup,
  kThreadIndexInSimdgroup,
  kSimdgroupsPerThreadgroup,
  kThreadsPerSimdgroup,
};

struct BindContext {
  LaneContext* lane = nullptr;
  const std::vector<Region>* buffers = nullptr;           // by [[buffer(n)]] index
  const std::vector<Region>* constant_buffers = nullptr;  // the same, seen as constant space
  const std::vector<Region>* threadgroup_args = nullptr;  // by [[threadgroup(n)]] index
};

// Throws (as a recorded kernel error) when a reference parameter's buffer is too small.
[[noreturn]] void fail_binding(const char* param, std::uint32_t index, std::size_t needed,
                               std::size_t bound);

template <class P>
P bind_region(const Region& r, const char* name, std::uint32_t index) {
  if constexpr (std::is_reference_v<P>) {
    using T = std::remove_reference_t<P>;
    if (r.bytes < sizeof(T)) fail_binding(name, index, sizeof(T), r.bytes);
    return *reinterpret_cast<T*>(r.base);
  } else {
    using T = typename P::element_type;
    return P(reinterpret_cast<T*>(r.base), &r);
  }
}

template <class P>
P bind_buffer(BindContext& c, std::uint32_t index, const char* name) {
  if constexpr (!std::is_reference_v<P>) {
    if constexpr (P::space == Space::kConstant) {
      return bind_region<P>((*c.constant_buffers)[index], name, index);
    }
  }
  return bind_region<P>((*c.buffers)[index], name, index);
}

template <class P>
P bind_threadgroup(BindContext& c, std::uint32_t index, const char* name) {
  return bind_region<P>((*c.threadgroup_args)[index], name, index);
}

// Where a thread sits, for its built-in values.
struct ThreadPlace {
  std::array<std::uint32_t, 3> thread_in_threadgroup{};
  std::array<std::uint32_t, 3> threadgroup_in_grid{};
  std::array<std::uint32_t, 3> threads_per_threadgroup{};
  std::array<std::uint32_t, 3> threadgroups_per_grid{};
  std::uint32_t linear_id = 0;
  std::uint32_t simdgroup = 0;
  std::uint32_t lane = 0;
  std::uint32_t simdgroups_per_threadgroup = 0;
};

// Built-in `b` of the thread at `p`, as 3D (scalars in x).
inline std::array<std::uint32_t, 3> builtin_value(Builtin b, const ThreadPlace& p) {
  std::array<std::uint32_t, 3> v{};
  switch (b) {
    case Builtin::kThreadPositionInThreadgroup:
      return p.thread_in_threadgroup;
    case Builtin::kThreadgroupPositionInGrid:
      return p.threadgroup_in_grid;
    case Builtin::kThreadPositionInGrid:
      for (int i = 0; i < 3; ++i) {
        v[i] = p.threadgroup_in_grid[i] * p.threads_per_threadgroup[i] + p.thread_in_threadgroup[i];
      }
      break;
    case Builtin::kThreadsPerThreadgroup:
      return p.threads_per_threadgroup;
    case Builtin::kThreadgroupsPerGrid:
      return p.threadgroups_per_grid;
    case Builtin::kThreadsPerGrid:
      for (int i = 0; i < 3; ++i) v[i] = p.threadgroups_per_grid[i] * p.threads_per_threadgroup[i];
      break;
    case Builtin::kThreadIndexInThreadgroup:
      v[0] = p.linear_id;
      break;
    case Builtin::kSimdgroupIndexInThreadgroup:
      v[0] = p.simdgroup;
      break;
    case Builtin::kThreadIndexInSimdgroup:
      v[0] = p.lane;
      break;
    case Builtin::kSimdgroupsPerThreadgroup:
      v[0] = p.simdgroups_per_threadgroup;
      break;
    case Builtin::kThreadsPerSimdgroup:
      v[0] = kSimdWidth;
      break;
  }
  return v;
}

template <class P>
P bind_builtin(BindContext& c, Builtin b) {
  const LaneContext& l = *c.lane;
  const std::array<std::uint32_t, 3> v = builtin_value(
      b, {l.thread_in_threadgroup, l.threadgroup_in_grid, l.threads_per_threadgroup,
          l.threadgroups_per_grid, l.linear_id, l.simdgroup, l.lane, l.simdgroups_per_threadgroup});
  using T = std::remove_cvref_t<P>;
  if constexpr (metal::detail::is_vec<T>::value) {
    T r;
    for (int i = 0; i < T::size; ++i) r[i] = static_cast<typename T::value_type>(v[i]);
    return r;
  } else {
    return static_cast<T>(v[0]);
  }
}

}  // namespace marlin::sim
