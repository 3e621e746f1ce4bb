// The batched build's barriers and simdgroup matrices. A batched simdgroup_matrix names a
// slot of its simdgroup, as metal::simdgroup_matrix does (simdgroup_matrix.h), holding one
// 8x8 matrix per member; every operation computes each member's matrix with the plain build's
// arithmetic (metal::detail::multiply_accumulate, round_for, ...). How lanes meet at them is
// marlin::sim::batch_matrix_op's contract (batch_lane.h).
#pragma once
#pragma GCC system_header

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <stdexcept>
#include <type_traits>

#include "marlin_msl/batch/batched_memory.h"
#include "marlin_msl/batch/batched_vec.h"
#include "marlin_msl/simdgroup_matrix.h"
#include "sim/runtime/batch_lane.h"

namespace metal_batch {

// Its own enumeration (not metal::mem_flags), so that the plain barriers are not candidates.
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

inline void threadgroup_barrier(mem_flags,
                                std::source_location site = std::source_location::current()) {
  marlin::sim::batch_barrier(true, site);
}
inline void simdgroup_barrier(mem_flags,
                              std::source_location site = std::source_location::current()) {
  marlin::sim::batch_barrier(false, site);
}

template <class T, int Rows, int Cols>
class simdgroup_matrix;

namespace detail {
using ::metal::detail::from_matrix_value;
using ::metal::detail::kNoSlot;
using ::metal::detail::MatrixCopyOp;
using ::metal::detail::MatrixMmaOp;
using ::metal::detail::round_for;
using ::metal::detail::to_matrix_value;

inline marlin::sim::BatchLane& batch_lane() {
  marlin::sim::BatchLane* lane = marlin::sim::current_batch_lane;
  if (lane == nullptr) throw std::logic_error("a batched simdgroup_matrix used outside a batch");
  return *lane;
}

// The value every member holds (a plain value is every member's).
template <class X>
auto uniform_of(const X& x) {
  if constexpr (kIsBatched<X>) {
    return x.uniform();
  } else {
    return x;
  }
}

// Operand descriptors: plain data, zero-filled so lanes compare byte for byte.
struct BatchMemOp {
  std::uint32_t slot;
  std::uint32_t transpose;
  const marlin::sim::Region* region;
  std::ptrdiff_t stride;
  std::uint64_t elements_per_row;
  std::uint64_t origin_x;
  std::uint64_t origin_y;
  std::byte* base[kBatchWidth];
};
struct BatchFillOp {
  std::uint32_t slot;
  float value[kBatchWidth];
};

template <class M, class E, bool kStore>
void apply_mem(const void* descriptor, marlin::sim::BatchSimdgroup& simd) {
  const auto& op = *static_cast<const BatchMemOp*>(descriptor);
  marlin::sim::BatchMatrix& m = marlin::sim::batch_matrix_slot(simd, op.slot);
  for (std::uint32_t b = 0; b < kBatchWidth; ++b) {
    const std::byte* lo = op.region->base + static_cast<std::ptrdiff_t>(b) * op.stride;
    E* mem = reinterpret_cast<E*>(op.base[b]);
    for (std::uint32_t row = 0; row < 8; ++row) {
      E* line = mem + (op.origin_y + row) * op.elements_per_row + op.origin_x;
      const auto* first = reinterpret_cast<const std::byte*>(line);
      if (first < lo || first + 8 * sizeof(E) > lo + op.region->bytes) {
        marlin::sim::batch_abort("a matrix row outside its buffer or declaration");
      }
      for (std::uint32_t col = 0; col < 8; ++col) {
        const std::uint32_t idx = op.transpose ? col * 8 + row : row * 8 + col;
        if constexpr (kStore) {
          line[col] = from_matrix_value<E>(m[b].f[idx]);
        } else {
          m[b].f[idx] = round_for<M>(to_matrix_value(static_cast<E>(line[col])));
        }
      }
    }
  }
}

template <class D, class A, class B>
void apply_mma(const void* descriptor, marlin::sim::BatchSimdgroup& simd) {
  const auto& op = *static_cast<const MatrixMmaOp*>(descriptor);
  std::uint32_t top = op.a > op.b ? op.a : op.b;
  top = op.d > top ? op.d : top;
  top = op.c != kNoSlot && op.c > top ? op.c : top;
  marlin::sim::batch_matrix_slot(simd, top);  // grows the pool first: the references stay valid
  static const std::array<float, 64> kZero{};
  const marlin::sim::BatchMatrix& a = marlin::sim::batch_matrix_slot(simd, op.a);
  const marlin::sim::BatchMatrix& bm = marlin::sim::batch_matrix_slot(simd, op.b);
  const marlin::sim::BatchMatrix* c =
      op.c == kNoSlot ? nullptr : &marlin::sim::batch_matrix_slot(simd, op.c);
  marlin::sim::BatchMatrix& d = marlin::sim::batch_matrix_slot(simd, op.d);
  for (std::uint32_t b = 0; b < kBatchWidth; ++b) {
    d[b].f = ::metal::detail::multiply_accumulate<D, A, B>(a[b].f, bm[b].f,
                                                           c == nullptr ? kZero : (*c)[b].f);
  }
}

template <class M>
void apply_fill(const void* descriptor, marlin::sim::BatchSimdgroup& simd) {
  const auto& op = *static_cast<const BatchFillOp*>(descriptor);
  marlin::sim::BatchMatrix& m = marlin::sim::batch_matrix_slot(simd, op.slot);
  for (std::uint32_t b = 0; b < kBatchWidth; ++b) {
    const float v = round_for<M>(op.value[b]);
    for (float& e : m[b].f) e = v;
  }
}

inline void apply_copy(const void* descriptor, marlin::sim::BatchSimdgroup& simd) {
  const auto& op = *static_cast<const MatrixCopyOp*>(descriptor);
  marlin::sim::batch_matrix_slot(simd, std::max(op.dst, op.src));
  marlin::sim::batch_matrix_slot(simd, op.dst) = marlin::sim::batch_matrix_slot(simd, op.src);
}

template <class Op>
void matrix_op(void (*apply)(const void*, marlin::sim::BatchSimdgroup&), const Op& op,
               std::source_location site, bool waits) {
  marlin::sim::BatchMatrixOp call;
  call.apply = apply;
  call.descriptor = &op;
  call.descriptor_bytes = sizeof(Op);
  call.site = site;
  call.waits = waits;
  marlin::sim::batch_matrix_op(call);
}
}  // namespace detail

template <class T>
class simdgroup_matrix<T, 8, 8> {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                "simdgroup_matrix supports half and float elements");

 public:
  using element_type = T;

  simdgroup_matrix() : slot_(marlin::sim::batch_allocate_matrix_slot(detail::batch_lane())) {}
  simdgroup_matrix(const simdgroup_matrix& o,
                   std::source_location site = std::source_location::current())
      : simdgroup_matrix() {
    copy_from(o, site);
  }
  simdgroup_matrix(simdgroup_matrix&& o) noexcept : slot_(o.slot_) { o.slot_ = detail::kNoSlot; }
  simdgroup_matrix& operator=(const simdgroup_matrix& o) {
    if (this != &o) copy_from(o, std::source_location::current());
    return *this;
  }
  simdgroup_matrix& operator=(simdgroup_matrix&& o) noexcept {
    std::swap(slot_, o.slot_);
    return *this;
  }
  ~simdgroup_matrix() {
    if (slot_ != detail::kNoSlot && marlin::sim::current_batch_lane != nullptr) {
      marlin::sim::batch_free_matrix_slot(*marlin::sim::current_batch_lane, slot_);
    }
  }

  std::uint32_t slot() const { return slot_; }

 private:
  void copy_from(const simdgroup_matrix& o, std::source_location site) {
    detail::MatrixCopyOp op;
    std::memset(&op, 0, sizeof op);
    op.dst = slot_;
    op.src = o.slot_;
    detail::matrix_op(&detail::apply_copy, op, site, false);
  }

  std::uint32_t slot_;
};

using simdgroup_half8x8 = simdgroup_matrix<half, 8, 8>;
using simdgroup_float8x8 = simdgroup_matrix<float, 8, 8>;

namespace detail {
template <class M, class P, class R, class O>
void matrix_mem(std::uint32_t slot, const P& pointer, const R& elements_per_row, const O& origin,
                bool transpose, bool store, std::source_location site) {
  const auto p = to_ptr(pointer);
  using E = std::remove_const_t<typename decltype(p)::element_type>;
  BatchMemOp op;
  std::memset(&op, 0, sizeof op);
  op.slot = slot;
  op.transpose = transpose ? 1 : 0;
  op.region = p.region();
  op.stride = p.stride();
  op.elements_per_row = static_cast<std::uint64_t>(uniform_of(elements_per_row));
  op.origin_x = static_cast<std::uint64_t>(uniform_of(origin[0]));
  op.origin_y = static_cast<std::uint64_t>(uniform_of(origin[1]));
  for (std::uint32_t b = 0; b < kBatchWidth; ++b) {
    op.base[b] = reinterpret_cast<std::byte*>(const_cast<E*>(p.member(b)));
  }
  if (op.region == nullptr) marlin::sim::batch_abort("a matrix access through a null pointer");
  if (store) {
    matrix_op(&apply_mem<M, E, true>, op, site, true);
  } else {
    matrix_op(&apply_mem<M, E, false>, op, site, true);
  }
}
}  // namespace detail

template <class T, class P, class R = ::metal::ulong, class O = ::metal::ulong2>
void simdgroup_load(simdgroup_matrix<T, 8, 8>& m, const P& src, const R& elements_per_row = 8,
                    const O& origin = O(0, 0), bool transpose = false,
                    std::source_location site = std::source_location::current()) {
  detail::matrix_mem<T>(m.slot(), src, elements_per_row, origin, transpose, false, site);
}

template <class T, class P, class R = ::metal::ulong, class O = ::metal::ulong2>
void simdgroup_store(const simdgroup_matrix<T, 8, 8>& m, const P& dst,
                     const R& elements_per_row = 8, const O& origin = O(0, 0),
                     bool transpose = false,
                     std::source_location site = std::source_location::current()) {
  detail::matrix_mem<T>(m.slot(), dst, elements_per_row, origin, transpose, true, site);
}

template <class D, class A, class B, class C>
void simdgroup_multiply_accumulate(simdgroup_matrix<D, 8, 8>& d, const simdgroup_matrix<A, 8, 8>& a,
                                   const simdgroup_matrix<B, 8, 8>& b,
                                   const simdgroup_matrix<C, 8, 8>& c,
                                   std::source_location site = std::source_location::current()) {
  detail::MatrixMmaOp op;
  std::memset(&op, 0, sizeof op);
  op.d = d.slot();
  op.a = a.slot();
  op.b = b.slot();
  op.c = c.slot();
  detail::matrix_op(&detail::apply_mma<D, A, B>, op, site, false);
}

template <class D, class A, class B>
void simdgroup_multiply(simdgroup_matrix<D, 8, 8>& d, const simdgroup_matrix<A, 8, 8>& a,
                        const simdgroup_matrix<B, 8, 8>& b,
                        std::source_location site = std::source_location::current()) {
  detail::MatrixMmaOp op;
  std::memset(&op, 0, sizeof op);
  op.d = d.slot();
  op.a = a.slot();
  op.b = b.slot();
  op.c = detail::kNoSlot;
  detail::matrix_op(&detail::apply_mma<D, A, B>, op, site, false);
}

template <class T, int Rows, int Cols = Rows, class V>
simdgroup_matrix<T, Rows, Cols> make_filled_simdgroup_matrix(
    const V& value, std::source_location site = std::source_location::current()) {
  static_assert(Rows == 8 && Cols == 8, "only 8x8 simdgroup matrices are supported");
  simdgroup_matrix<T, 8, 8> m;
  detail::BatchFillOp op;
  std::memset(&op, 0, sizeof op);
  op.slot = m.slot();
  const auto v = detail::value(value);
  for (std::uint32_t b = 0; b < kBatchWidth; ++b) {
    op.value[b] = detail::to_matrix_value(static_cast<T>(detail::at(v, b)));
  }
  detail::matrix_op(&detail::apply_fill<T>, op, site, false);
  return m;
}

}  // namespace metal_batch
