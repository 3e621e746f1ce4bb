// PackedTrace: one simdgroup's trace in the compact form a streamed replay holds while its
// threadgroup is resident, and PackedTraceReader, which unpacks it a window at a time as the
// replay advances (docs/trace-format.md, "Packed traces").
//
// A kernel's main loop issues the same ops every K step, with deps the same number of ops back
// and accesses whose offsets advance by the same amount each step. The packed form stores such
// an op as a copy of the op `distance` back: its fields, its dep `distance` later, and each
// access at the offset extrapolated from the copied access and the one as far back again
// (offset + (offset - earlier offset)). Other ops are stored field by field.
//
// Contract:
// - pack_trace() packs a trace that check_simdgroup_trace() passes with a reach of at most
//   kMaxPackedReach and whose ops store their accesses one after another in op order, as the
//   engine's traces do; it returns nothing for any other trace, which the caller keeps as it is.
// - unpack_trace(pack_trace(t)) == t, field for field.
// - A PackedTraceReader gives the ops in order; an op's first_access is where the reader holds
//   its accesses, not the trace's index (see fill()).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/runtime/trace.h"

namespace marlin::timing {

// Deps of a packed trace reach back at most this many ops (counting the op itself).
inline constexpr std::size_t kMaxPackedReach = 4096;

struct PackedTrace {
  std::array<std::uint32_t, 3> threadgroup{};
  std::uint32_t simdgroup = 0;
  std::uint32_t op_count = 0;
  std::uint32_t reach = 1;          // check_simdgroup_trace()'s reach
  std::uint32_t max_distance = 0;   // farthest op a copy reads back
  std::uint32_t access_reach = 0;   // farthest access record an extrapolation reads back
  std::vector<std::uint8_t> bytes;  // the encoded ops and accesses

  // Host memory it takes.
  [[nodiscard]] std::size_t footprint() const { return sizeof(PackedTrace) + bytes.capacity(); }
};

// `reach` is check_simdgroup_trace()'s result for `sg`, which must have passed.
std::optional<PackedTrace> pack_trace(const sim::SimdgroupTrace& sg, std::size_t reach);

class PackedTraceReader {
 public:
  // Ops unpacked ahead of the one fill() is called for.
  static constexpr std::uint32_t kAhead = 64;

  // Starts reading `trace`, which must outlive the reading, at op 0 (nothing unpacked yet).
  void start(const PackedTrace& trace);

  // Unpacks ops up to pc + kAhead (at most the trace's end). Afterwards op i is ops()[i &
  // mask()] for every i in [pc - reach + 1, end()) with i >= 0, and an op i >= pc with
  // accesses stores them from accesses()[op.first_access]. Requires pc <= end() and pc no
  // lower than in the previous call. Pointers from before the call are invalid after it.
  void fill(std::uint32_t pc);

  [[nodiscard]] const sim::TraceOp* ops() const { return ring_.data(); }
  [[nodiscard]] std::uint32_t mask() const { return mask_; }
  [[nodiscard]] const sim::MemAccess* accesses() const { return buffer_.data(); }
  [[nodiscard]] std::uint32_t end() const { return end_; }

 private:
  void unpack_one();
  void unpack_literal(sim::TraceOp& op);
  void unpack_copy(sim::TraceOp& op);
  std::uint64_t read_varint();

  const PackedTrace* trace_ = nullptr;
  std::size_t pos_ = 0;         // next byte of trace_->bytes
  std::uint32_t run_left_ = 0;  // ops left in the current run
  std::uint32_t distance_ = 0;  // of the current run; 0: a literal run
  std::uint32_t end_ = 0;       // ops unpacked
  std::uint32_t mask_ = 0;      // ring size - 1
  std::vector<sim::TraceOp> ring_;
  std::vector<std::uint64_t> first_of_;  // per ring entry: the access records before its op
  std::vector<sim::MemAccess> buffer_;   // access records from record base_ on
  std::uint64_t base_ = 0;
};

// The whole trace back, read through a PackedTraceReader as a replay reads it.
sim::SimdgroupTrace unpack_trace(const PackedTrace& packed);

}  // namespace marlin::timing
