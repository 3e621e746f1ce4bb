// Barriers and simdgroup collectives: threadgroup_barrier, simdgroup_barrier, simd_shuffle*,
// simd_broadcast, simd_sum/min/max, simd_all/any, simd_ballot.
//
// Each call is a synchronization point, identified by its std::source_location. A
// threadgroup_barrier waits for every thread of the threadgroup at the same site. A
// simdgroup collective runs once for the lanes waiting at the same site when nothing else in
// the simdgroup can run: in uniform code all live lanes, in divergent code the lanes that
// took the branch (Metal's active lanes; docs/engine.md). Inactive lanes (returned, or on
// another path) take no part: reductions and votes skip them, and a shuffle reading one
// returns the reading lane's own value (Metal leaves it undefined). Reductions combine lanes as a
// butterfly tree (offsets 16, 8, 4, 2, 1), so float results do not depend on thread order.
#pragma once
#pragma GCC system_header

#include <bit>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "marlin_msl/address_space.h"
#include "marlin_msl/types.h"
#include "sim/runtime/lane_context.h"

namespace metal {

enum class mem_flags : std::uint32_t {
  mem_none = 0,
  mem_device = 1,
  mem_threadgroup = 2,
  mem_texture = 4,
  mem_threadgroup_imageblock = 8,
};
constexpr mem_flags operator|(mem_flags a, mem_flags b) {
  return static_cast<mem_flags>(static_cast<std::uint32_t>(a) | static_cast<std::uint32_t>(b));
}

inline void threadgroup_barrier(mem_flags flags,
                                std::source_location site = std::source_location::current()) {
  marlin::sim::threadgroup_barrier_wait(static_cast<std::uint32_t>(flags), site);
}

namespace detail {
using marlin::sim::kSimdWidth;
using marlin::sim::SimdExchange;
using marlin::sim::SyncClass;

// The value type of an argument: a space_ref (element read through a pointer) is loaded.
template <class V>
struct value_of {
  using type = V;
};
template <class T, marlin::sim::Space S>
struct value_of<space_ref<T, S>> {
  using type = std::remove_const_t<T>;
};
template <class V>
using value_t = typename value_of<std::remove_cvref_t<V>>::type;

template <class V>
concept SimdValue = std::is_trivially_copyable_v<value_t<V>> && sizeof(value_t<V>) <= 16;

template <class T>
T read_slot(const std::byte* slot) {
  T v;
  std::memcpy(&v, slot, sizeof(T));
  return v;
}
template <class T>
void write_slot(std::byte* slot, const T& v) {
  std::memcpy(slot, &v, sizeof(T));
}

inline bool lane_active(const SimdExchange& x, std::uint32_t lane) {
  return ((x.active_mask >> lane) & 1u) != 0;
}

enum class ShuffleKind { kIndex, kUp, kDown, kXor };

template <class T, ShuffleKind K>
void apply_shuffle(SimdExchange& x, marlin::sim::SimdgroupRun&, marlin::sim::LaneContext&) {
  for (std::uint32_t l = 0; l < kSimdWidth; ++l) {
    if (!lane_active(x, l)) continue;
    const std::uint32_t p = x.param[l];
    std::uint32_t src = l;
    if constexpr (K == ShuffleKind::kIndex) src = p % kSimdWidth;
    if constexpr (K == ShuffleKind::kUp) src = l >= p ? l - p : l;
    if constexpr (K == ShuffleKind::kDown) src = l + p < kSimdWidth ? l + p : l;
    if constexpr (K == ShuffleKind::kXor) src = (l ^ p) % kSimdWidth;
    // Metal leaves a read from an inactive lane undefined; the engine returns the reading
    // lane's own value, as for a shuffle_up/down past the simdgroup's edge.
    if (!lane_active(x, src)) src = l;
    std::memcpy(x.out[l].data(), x.in[src].data(), sizeof(T));
  }
}

// Uncounted element combination for reductions (the reduction is one traced op).
template <class T>
T combine_add(T a, T b) {
  if constexpr (kIsCounted<T>) {
    return T(combine_add(a.v, b.v));
  } else if constexpr (std::is_same_v<T, half>) {
    return half::round(a.to_float() + b.to_float());
  } else if constexpr (is_vec<T>::value) {
    T r;
    for (int i = 0; i < T::size; ++i) r[i] = combine_add(a[i], b[i]);
    return r;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <class T>
T combine_min(T a, T b) {
  if constexpr (kIsCounted<T>) {
    return T(combine_min(a.v, b.v));
  } else if constexpr (is_vec<T>::value) {
    T r;
    for (int i = 0; i < T::size; ++i) r[i] = combine_min(a[i], b[i]);
    return r;
  } else if constexpr (std::is_same_v<T, half>) {
    return b.to_float() < a.to_float() ? b : a;
  } else {
    return b < a ? b : a;
  }
}
template <class T>
T combine_max(T a, T b) {
  if constexpr (kIsCounted<T>) {
    return T(combine_max(a.v, b.v));
  } else if constexpr (is_vec<T>::value) {
    T r;
    for (int i = 0; i < T::size; ++i) r[i] = combine_max(a[i], b[i]);
    return r;
  } else if constexpr (std::is_same_v<T, half>) {
    return a.to_float() < b.to_float() ? b : a;
  } else {
    return a < b ? b : a;
  }
}

enum class ReduceKind { kSum, kMin, kMax };

template <class T, ReduceKind K>
void apply_reduce(SimdExchange& x, marlin::sim::SimdgroupRun&, marlin::sim::LaneContext&) {
  T v[kSimdWidth];
  bool has[kSimdWidth];
  for (std::uint32_t l = 0; l < kSimdWidth; ++l) {
    has[l] = lane_active(x, l);
    if (has[l]) v[l] = read_slot<T>(x.in[l].data());
  }
  // Butterfly tree: at each offset, lane l combines with lane l + offset (inactive lanes are
  // skipped, which is the identity of the operation).
  for (std::uint32_t offset = kSimdWidth / 2; offset > 0; offset /= 2) {
    for (std::uint32_t l = 0; l < offset; ++l) {
      const std::uint32_t o = l + offset;
      if (!has[o]) continue;
      if (!has[l]) {
        v[l] = v[o];
        has[l] = true;
        continue;
      }
      if constexpr (K == ReduceKind::kSum) v[l] = combine_add(v[l], v[o]);
      if constexpr (K == ReduceKind::kMin) v[l] = combine_min(v[l], v[o]);
      if constexpr (K == ReduceKind::kMax) v[l] = combine_max(v[l], v[o]);
    }
  }
  for (std::uint32_t l = 0; l < kSimdWidth; ++l) {
    if (lane_active(x, l)) write_slot(x.out[l].data(), v[0]);
  }
}

// A ballot's result: the lanes that voted true and the lanes that took part.
struct VoteBits {
  std::uint64_t votes;
  std::uint64_t active;
};

inline void apply_ballot(SimdExchange& x, marlin::sim::SimdgroupRun&, marlin::sim::LaneContext&) {
  VoteBits bits{0, x.active_mask};
  for (std::uint32_t l = 0; l < kSimdWidth; ++l) {
    if (lane_active(x, l) && x.param[l] != 0) bits.votes |= std::uint64_t{1} << l;
  }
  for (std::uint32_t l = 0; l < kSimdWidth; ++l) write_slot(x.out[l].data(), bits);
}

inline void apply_nothing(SimdExchange&, marlin::sim::SimdgroupRun&, marlin::sim::LaneContext&) {}

template <class T>
T collective(marlin::sim::ApplyFn apply, SyncClass cls, const T& value, std::uint32_t param,
             std::source_location site, std::uint8_t trace_kind = 0) {
  marlin::sim::CollectiveCall call;
  call.apply = apply;
  call.sync_class = cls;
  call.site = site;
  call.trace_kind = trace_kind;
  if constexpr (kIsCounted<T>) call.operand_producer = value.tag.producer;
  const std::byte* out = marlin::sim::simd_collective(call, &value, sizeof(T), param);
  T result = read_slot<T>(out);
  if constexpr (kIsCounted<T>) {
    // A new value: it extends no ALU chain, and who consumes it waits for this collective.
    const marlin::sim::LaneContext& lane = *marlin::sim::current_lane;
    result.tag = {lane.segment, 0, marlin::sim::AluKind::kCount, lane.last_collective};
  }
  return result;
}
}  // namespace detail

inline void simdgroup_barrier(mem_flags flags,
                              std::source_location site = std::source_location::current()) {
  detail::collective<std::uint32_t>(&detail::apply_nothing, detail::SyncClass::kSimdBarrier,
                                    static_cast<std::uint32_t>(flags), 0, site,
                                    static_cast<std::uint8_t>(flags));
}

template <detail::SimdValue V, class T = detail::value_t<V>>
T simd_shuffle(const V& value_in, ushort lane,
               std::source_location site = std::source_location::current()) {
  return detail::collective<T>(&detail::apply_shuffle<T, detail::ShuffleKind::kIndex>,
                               detail::SyncClass::kShuffle, static_cast<T>(value_in), lane, site);
}
template <detail::SimdValue V, class T = detail::value_t<V>>
T simd_broadcast(const V& value_in, ushort lane,
                 std::source_location site = std::source_location::current()) {
  return simd_shuffle(static_cast<T>(value_in), lane, site);
}
template <detail::SimdValue V, class T = detail::value_t<V>>
T simd_shuffle_up(const V& value_in, ushort delta,
                  std::source_location site = std::source_location::current()) {
  return detail::collective<T>(&detail::apply_shuffle<T, detail::ShuffleKind::kUp>,
                               detail::SyncClass::kShuffle, static_cast<T>(value_in), delta, site);
}
template <detail::SimdValue V, class T = detail::value_t<V>>
T simd_shuffle_down(const V& value_in, ushort delta,
                    std::source_location site = std::source_location::current()) {
  return detail::collective<T>(&detail::apply_shuffle<T, detail::ShuffleKind::kDown>,
                               detail::SyncClass::kShuffle, static_cast<T>(value_in), delta, site);
}
template <detail::SimdValue V, class T = detail::value_t<V>>
T simd_shuffle_xor(const V& value_in, ushort mask,
                   std::source_location site = std::source_location::current()) {
  return detail::collective<T>(&detail::apply_shuffle<T, detail::ShuffleKind::kXor>,
                               detail::SyncClass::kShuffle, static_cast<T>(value_in), mask, site);
}
template <detail::SimdValue V, class T = detail::value_t<V>>
T simd_sum(const V& value_in, std::source_location site = std::source_location::current()) {
  return detail::collective<T>(&detail::apply_reduce<T, detail::ReduceKind::kSum>,
                               detail::SyncClass::kReduction, static_cast<T>(value_in), 0, site);
}
template <detail::SimdValue V, class T = detail::value_t<V>>
T simd_min(const V& value_in, std::source_location site = std::source_location::current()) {
  return detail::collective<T>(&detail::apply_reduce<T, detail::ReduceKind::kMin>,
                               detail::SyncClass::kReduction, static_cast<T>(value_in), 0, site);
}
template <detail::SimdValue V, class T = detail::value_t<V>>
T simd_max(const V& value_in, std::source_location site = std::source_location::current()) {
  return detail::collective<T>(&detail::apply_reduce<T, detail::ReduceKind::kMax>,
                               detail::SyncClass::kReduction, static_cast<T>(value_in), 0, site);
}

// The lanes whose predicate was true, bit l for lane l (Metal's simd_vote).
class simd_vote {
 public:
  using vote_t = std::uint64_t;
  constexpr explicit simd_vote(vote_t v = 0) : v_(v) {}
  constexpr explicit operator vote_t() const { return v_; }
  // True if every active lane voted true / if any lane did.
  constexpr bool all() const { return v_ == active_; }
  constexpr bool any() const { return v_ != 0; }
  constexpr void set_active(vote_t active) { active_ = active; }

 private:
  vote_t v_;
  vote_t active_ = 0xFFFFFFFFu;
};

inline simd_vote simd_ballot(bool predicate,
                             std::source_location site = std::source_location::current()) {
  const auto bits = detail::collective<detail::VoteBits>(
      &detail::apply_ballot, detail::SyncClass::kVote, {}, predicate ? 1u : 0u, site);
  simd_vote vote(bits.votes);
  vote.set_active(bits.active);
  return vote;
}
inline bool simd_any(bool predicate, std::source_location site = std::source_location::current()) {
  return static_cast<simd_vote::vote_t>(simd_ballot(predicate, site)) != 0;
}
inline bool simd_all(bool predicate, std::source_location site = std::source_location::current()) {
  // All active lanes voted true exactly when no active lane voted false.
  return static_cast<simd_vote::vote_t>(simd_ballot(!predicate, site)) == 0;
}

}  // namespace metal
