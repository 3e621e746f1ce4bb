// simdgroup_matrix<half|float, 8, 8>: an 8x8 matrix held collectively by a simdgroup.
//
// The 64 elements live once per simdgroup in the executor (a slot of the simdgroup's matrix
// pool); each lane's simdgroup_matrix object only names the slot. Lanes allocate slots in
// program order, so the lanes of a simdgroup agree on slot numbers as long as they construct
// matrices uniformly (Metal requires simdgroup-uniform use). Every operation that writes a
// matrix (load, store, multiply-accumulate, fill, copy) is a simdgroup collective performed
// once, for all live lanes (docs/engine.md: loads, multiplies, fills and copies are performed
// later, as if the lanes had waited at them). Elements are kept as float; a half matrix holds
// values rounded to half.
//
// Memory layout convention (Metal's): element (row r, column c) of a matrix loaded from
// `src` with `elements_per_row` = s and origin = (x, y) is src[(y + r) * s + x + c]; with
// transpose it is src[(y + c) * s + x + r]. The origin is in memory coordinates (x = column,
// y = row of the memory array) in both cases; stores mirror loads.
#pragma once
#pragma GCC system_header

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <stdexcept>
#include <type_traits>

#include "marlin_msl/address_space.h"
#include "marlin_msl/simd.h"

namespace metal {

template <class T, int Rows, int Cols>
class simdgroup_matrix;

namespace detail {
inline constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;

template <class T>
float to_matrix_value(T v) {
  if constexpr (std::is_same_v<T, half>) {
    return v.to_float();
  } else {
    return static_cast<float>(v);
  }
}
template <class T>
T from_matrix_value(float v) {
  if constexpr (std::is_same_v<T, half>) {
    return half::round(v);
  } else {
    return static_cast<T>(v);
  }
}
// Rounds a float to what a matrix of element type M can hold.
template <class M>
float round_for(float v) {
  return to_matrix_value(from_matrix_value<M>(v));
}

// Operand descriptors: plain data, zero-filled so lanes can be compared byte for byte.
struct MatrixMemOp {
  std::uint32_t slot;
  std::uint32_t transpose;
  const marlin::sim::Region* region;
  std::byte* base;
  std::uint64_t elements_per_row;
  std::uint64_t origin_x;
  std::uint64_t origin_y;
};
struct MatrixMmaOp {
  std::uint32_t d, a, b, c;
};
struct MatrixFillOp {
  std::uint32_t slot;
  float value;
};
struct MatrixCopyOp {
  std::uint32_t dst, src;
};

inline marlin::sim::LaneContext& lane_or_throw();

template <class M, class E, bool kStore>
void apply_matrix_mem(marlin::sim::SimdExchange& x, marlin::sim::SimdgroupRun& simd,
                      marlin::sim::LaneContext& performer) {
  const auto& op = *static_cast<const MatrixMemOp*>(x.op);
  auto& m = marlin::sim::matrix_slot(simd, op.slot);
  const auto kind = kStore ? marlin::sim::AccessKind::kStore : marlin::sim::AccessKind::kLoad;
  E* mem = reinterpret_cast<E*>(op.base);
  for (std::uint32_t row = 0; row < 8; ++row) {
    E* line = mem + (op.origin_y + row) * op.elements_per_row + op.origin_x;
    marlin::sim::on_matrix_access(performer, *op.region, line, 8 * sizeof(E), row, kind);
    for (std::uint32_t col = 0; col < 8; ++col) {
      // Memory element (row, col) of the block is matrix element (row, col), or (col, row)
      // when transposed.
      const std::uint32_t idx = op.transpose ? col * 8 + row : row * 8 + col;
      if constexpr (kStore) {
        line[col] = from_matrix_value<E>(m.f[idx]);
      } else {
        m.f[idx] = round_for<M>(to_matrix_value(static_cast<E>(line[col])));
      }
    }
  }
}

// d = a * b + c for matrices of element types D, A, B (elements as float): each product
// fused into a float accumulator (as fma) from c in k order, rounded once to D. Products of
// two halves are exact in float, so a plain multiply-add is the fused result and avoids a
// library call. The batched build (marlin_msl/batch/) computes its members with it too.
template <class D, class A, class B>
std::array<float, 64> multiply_accumulate(const std::array<float, 64>& a,
                                          const std::array<float, 64>& b,
                                          const std::array<float, 64>& c) {
  std::array<float, 64> d;
  constexpr bool kExactProducts = std::is_same_v<A, half> && std::is_same_v<B, half>;
  for (int r = 0; r < 8; ++r) {
    for (int col = 0; col < 8; ++col) {
      float acc = c[static_cast<std::size_t>(r * 8 + col)];
      for (int k = 0; k < 8; ++k) {
        const float x = a[static_cast<std::size_t>(r * 8 + k)];
        const float y = b[static_cast<std::size_t>(k * 8 + col)];
        if constexpr (kExactProducts) {
          acc = acc + x * y;
        } else {
          acc = std::fma(x, y, acc);
        }
      }
      d[static_cast<std::size_t>(r * 8 + col)] = round_for<D>(acc);
    }
  }
  return d;
}

template <class D, class A, class B>
void apply_matrix_mma(marlin::sim::SimdExchange& x, marlin::sim::SimdgroupRun& simd,
                      marlin::sim::LaneContext&) {
  const auto& op = *static_cast<const MatrixMmaOp*>(x.op);
  // The pool grows to the highest slot first, so the references below stay valid. The
  // result goes to a local array: d may be a, b or c.
  std::uint32_t top = op.a > op.b ? op.a : op.b;
  top = op.d > top ? op.d : top;
  top = op.c != kNoSlot && op.c > top ? op.c : top;
  marlin::sim::matrix_slot(simd, top);
  static const std::array<float, 64> kZero{};
  const auto& a = marlin::sim::matrix_slot(simd, op.a).f;
  const auto& b = marlin::sim::matrix_slot(simd, op.b).f;
  const auto& c = op.c == kNoSlot ? kZero : marlin::sim::matrix_slot(simd, op.c).f;
  marlin::sim::matrix_slot(simd, op.d).f = multiply_accumulate<D, A, B>(a, b, c);
}

template <class M>
void apply_matrix_fill(marlin::sim::SimdExchange& x, marlin::sim::SimdgroupRun& simd,
                       marlin::sim::LaneContext&) {
  const auto& op = *static_cast<const MatrixFillOp*>(x.op);
  auto& m = marlin::sim::matrix_slot(simd, op.slot);
  for (float& v : m.f) v = round_for<M>(op.value);
}

inline void apply_matrix_copy(marlin::sim::SimdExchange& x, marlin::sim::SimdgroupRun& simd,
                              marlin::sim::LaneContext&) {
  const auto& op = *static_cast<const MatrixCopyOp*>(x.op);
  marlin::sim::matrix_slot(simd, op.dst) = marlin::sim::matrix_slot(simd, op.src);
}

// Runs a matrix op once for the simdgroup; `reads`/`write` name the slots for the trace.
template <class Op>
void matrix_collective(marlin::sim::ApplyFn apply, marlin::sim::SyncClass cls, const Op& op,
                       std::source_location site, std::array<std::uint32_t, 3> reads,
                       std::uint32_t write, std::uint8_t trace_kind = 0) {
  marlin::sim::CollectiveCall call;
  call.apply = apply;
  call.sync_class = cls;
  call.site = site;
  call.op = &op;
  call.op_bytes = sizeof(Op);
  call.matrix_reads = reads;
  call.matrix_write = write;
  call.trace_kind = trace_kind;
  marlin::sim::simd_collective(call, nullptr, 0, 0);
}

inline marlin::sim::LaneContext& lane_or_throw() {
  marlin::sim::LaneContext* lane = marlin::sim::current_lane;
  if (lane == nullptr) throw std::logic_error("simdgroup_matrix used outside a kernel launch");
  return *lane;
}
}  // namespace detail

template <class T>
class simdgroup_matrix<T, 8, 8> {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                "simdgroup_matrix supports half and float elements");

 public:
  using element_type = T;

  simdgroup_matrix() : slot_(marlin::sim::allocate_matrix_slot(detail::lane_or_throw())) {}
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
  // Moving swaps slot names: every lane does the same, so no collective is needed.
  simdgroup_matrix& operator=(simdgroup_matrix&& o) noexcept {
    std::swap(slot_, o.slot_);
    return *this;
  }
  ~simdgroup_matrix() {
    if (slot_ != detail::kNoSlot && marlin::sim::current_lane != nullptr) {
      marlin::sim::free_matrix_slot(*marlin::sim::current_lane, slot_);
    }
  }

  std::uint32_t slot() const { return slot_; }

 private:
  void copy_from(const simdgroup_matrix& o, std::source_location site) {
    detail::MatrixCopyOp op;
    std::memset(&op, 0, sizeof op);
    op.dst = slot_;
    op.src = o.slot_;
    detail::matrix_collective(&detail::apply_matrix_copy, marlin::sim::SyncClass::kMatrixCopy, op,
                              site, {o.slot_, detail::kNoSlot, detail::kNoSlot}, slot_);
  }

  std::uint32_t slot_;
};

using simdgroup_half8x8 = simdgroup_matrix<half, 8, 8>;
using simdgroup_float8x8 = simdgroup_matrix<float, 8, 8>;

namespace detail {
template <class M, class P>
void matrix_mem(std::uint32_t slot, const P& pointer, ulong elements_per_row, ulong2 origin,
                bool transpose, bool store, std::source_location site) {
  const auto p = to_ptr(pointer);
  using E = std::remove_const_t<typename decltype(p)::element_type>;
  MatrixMemOp op;
  std::memset(&op, 0, sizeof op);
  op.slot = slot;
  op.transpose = transpose ? 1 : 0;
  op.region = p.region();
  op.base = reinterpret_cast<std::byte*>(const_cast<E*>(p.raw()));
  op.elements_per_row = elements_per_row;
  op.origin_x = origin.x;
  op.origin_y = origin.y;
  const auto space = static_cast<std::uint8_t>(decltype(p)::space);
  if (store) {
    matrix_collective(&apply_matrix_mem<M, E, true>, marlin::sim::SyncClass::kMatrixStore, op, site,
                      {slot, kNoSlot, kNoSlot}, kNoSlot, space);
  } else {
    matrix_collective(&apply_matrix_mem<M, E, false>, marlin::sim::SyncClass::kMatrixLoad, op, site,
                      {kNoSlot, kNoSlot, kNoSlot}, slot, space);
  }
}
}  // namespace detail

template <class T, class P>
void simdgroup_load(simdgroup_matrix<T, 8, 8>& m, const P& src, ulong elements_per_row = 8,
                    ulong2 origin = ulong2(0, 0), bool transpose = false,
                    std::source_location site = std::source_location::current()) {
  detail::matrix_mem<T>(m.slot(), src, elements_per_row, origin, transpose, false, site);
}

template <class T, class P>
void simdgroup_store(const simdgroup_matrix<T, 8, 8>& m, const P& dst, ulong elements_per_row = 8,
                     ulong2 origin = ulong2(0, 0), bool transpose = false,
                     std::source_location site = std::source_location::current()) {
  detail::matrix_mem<T>(m.slot(), dst, elements_per_row, origin, transpose, true, site);
}

namespace detail {
// TraceOp::kind of a matrix multiply: 1 when an input matrix is float (timed as matmul_f32),
// 0 for half inputs (matmul_f16), whatever the accumulator type.
template <class A, class B>
constexpr std::uint8_t multiply_trace_kind() {
  return std::is_same_v<A, float> || std::is_same_v<B, float> ? 1 : 0;
}
}  // namespace detail

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
  detail::matrix_collective(&detail::apply_matrix_mma<D, A, B>,
                            marlin::sim::SyncClass::kMatrixMultiply, op, site, {op.a, op.b, op.c},
                            op.d, detail::multiply_trace_kind<A, B>());
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
  detail::matrix_collective(&detail::apply_matrix_mma<D, A, B>,
                            marlin::sim::SyncClass::kMatrixMultiply, op, site,
                            {op.a, op.b, detail::kNoSlot}, op.d,
                            detail::multiply_trace_kind<A, B>());
}

template <class T, int Rows, int Cols = Rows>
simdgroup_matrix<T, Rows, Cols> make_filled_simdgroup_matrix(
    T value, std::source_location site = std::source_location::current()) {
  static_assert(Rows == 8 && Cols == 8, "only 8x8 simdgroup matrices are supported");
  simdgroup_matrix<T, 8, 8> m;
  detail::MatrixFillOp op;
  std::memset(&op, 0, sizeof op);
  op.slot = m.slot();
  op.value = detail::to_matrix_value(value);
  detail::matrix_collective(&detail::apply_matrix_fill<T>, marlin::sim::SyncClass::kMatrixFill, op,
                            site, {detail::kNoSlot, detail::kNoSlot, detail::kNoSlot}, op.slot);
  return m;
}

}  // namespace metal
