// The per-simdgroup trace the timing model replays (format version kTraceFormatVersion).
//
// A launch's trace is one record stream per simdgroup, ordered by threadgroup (linear index)
// then simdgroup index. Each TraceOp is one SIMD instruction (or, for ALU work, a run of
// `count` instructions of one kind, the longest `chain` of them dependent on each other) with
// the mask of lanes that executed it. Memory ops store their per-lane accesses from
// `accesses[first_access]`, one record each or as an affine run (access_at() below). `dep` is
// the index, in the same stream, of the earlier op whose result this op waits for (-1: none).
// docs/trace-format.md defines every field, the dependency rule and the dependent chains.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/runtime/lane_context.h"

namespace marlin::sim {

inline constexpr std::uint32_t kTraceFormatVersion = 4;

enum class OpClass : std::uint8_t {
  kAlu,                 // kind = AluKind, count = instructions
  kDeviceLoad,          // kind = Space (device or constant)
  kDeviceStore,         // kind = Space::kDevice
  kThreadgroupLoad,     //
  kThreadgroupStore,    //
  kAtomic,              // kind = Space
  kThreadgroupBarrier,  // kind = mem_flags bits
  kSimdBarrier,         // kind = mem_flags bits
  kShuffle,
  kReduction,
  kVote,
  kMatrixLoad,      // accesses: 8 rows (lane field = row), kind = Space
  kMatrixStore,     // as kMatrixLoad
  kMatrixMultiply,  // one 8x8x8 multiply-accumulate
  kMatrixFill,
  kMatrixCopy,
};

const char* op_class_name(OpClass op);
const char* alu_kind_name(AluKind kind);

// ---- op-class predicates (the one place for them) ----
// Ops whose result arrives after a long, variable latency.
constexpr bool is_long_latency(OpClass op) {
  return op == OpClass::kDeviceLoad || op == OpClass::kThreadgroupLoad || op == OpClass::kAtomic ||
         op == OpClass::kMatrixLoad || op == OpClass::kMatrixMultiply;
}
// Loads: per lane (device, threadgroup) or of a matrix.
constexpr bool is_load(OpClass op) {
  return op == OpClass::kDeviceLoad || op == OpClass::kThreadgroupLoad ||
         op == OpClass::kMatrixLoad;
}
// Ops that write memory (an atomic both reads and writes).
constexpr bool is_store(OpClass op) {
  return op == OpClass::kDeviceStore || op == OpClass::kThreadgroupStore ||
         op == OpClass::kMatrixStore || op == OpClass::kAtomic;
}
// Per-lane memory ops: one access per active lane (LaneEvent memory events).
constexpr bool is_lane_memory(OpClass op) {
  return op == OpClass::kDeviceLoad || op == OpClass::kDeviceStore ||
         op == OpClass::kThreadgroupLoad || op == OpClass::kThreadgroupStore ||
         op == OpClass::kAtomic;
}
// Ops that carry MemAccess records: the per-lane memory ops and matrix loads and stores.
constexpr bool has_accesses(OpClass op) {
  return is_lane_memory(op) || op == OpClass::kMatrixLoad || op == OpClass::kMatrixStore;
}
// Ops that compute on registers only: ALU, simdgroup collectives and matrix arithmetic.
constexpr bool is_compute(OpClass op) {
  return op == OpClass::kAlu || op == OpClass::kShuffle || op == OpClass::kReduction ||
         op == OpClass::kVote || op == OpClass::kMatrixMultiply || op == OpClass::kMatrixFill ||
         op == OpClass::kMatrixCopy;
}

struct TraceOp {
  OpClass op = OpClass::kAlu;
  std::uint8_t kind = 0;
  std::uint16_t count = 0;  // ALU: instructions; memory: number of accesses
  std::uint32_t mask = 0;   // active lanes
  std::int32_t dep = -1;
  // One field, by op class: ops with accesses (has_accesses) hold the index of their first
  // entry in `accesses`; ALU ops the longest dependent chain among their `count`
  // instructions (0 or 1: none consumes another's result; at most `count`).
  union {
    std::uint32_t first_access = 0;
    std::uint32_t chain;
  };
  // Field by field (the struct has no padding).
  friend bool operator==(const TraceOp& a, const TraceOp& b) {
    return std::memcmp(&a, &b, sizeof(TraceOp)) == 0;
  }
};
static_assert(sizeof(TraceOp) == 16 && std::has_unique_object_representations_v<TraceOp>);

struct MemAccess {
  std::uint32_t offset = 0;  // bytes from the buffer start (threadgroup: from arena start)
  std::uint16_t buffer = 0;  // [[buffer(n)]] index or kThreadgroupBufferId
  std::uint8_t bytes = 0;
  std::uint8_t lane = 0;  // lane (matrix ops: row); kAffineRun marks a stored affine run
  friend bool operator==(const MemAccess&, const MemAccess&) = default;
};
static_assert(sizeof(MemAccess) == 8);

// A buffer's move from one threadgroup's traces to another's: `shift` bytes (modulo 2^32)
// added to the offset of each of its accesses (trace_translation.h).
struct BufferShift {
  std::uint16_t buffer = 0;
  std::uint32_t shift = 0;
  friend bool operator==(const BufferShift&, const BufferShift&) = default;
};

// The shift of `buffer` in `shifts` (each buffer listed at most once), 0 if it is not listed.
constexpr std::uint32_t shift_of(std::span<const BufferShift> shifts, std::uint16_t buffer) {
  for (const BufferShift& s : shifts) {
    if (s.buffer == buffer) return s.shift;
  }
  return 0;
}

// How an op's `count` accesses are stored from accesses[first_access]: one record each, or,
// for an affine run (at least 3 accesses of one buffer and size by consecutive lanes, offsets
// a constant stride apart), two records: the first access with kAffineRun set in its lane,
// then a record whose offset is the stride (modulo 2^32; its other fields are 0).
inline constexpr std::uint8_t kAffineRun = 0x80;

// Whether `count` accesses stored from `stored` are an affine run (two records).
constexpr bool is_affine_run(const MemAccess* stored, const std::uint32_t count) {
  return count > 0 && (stored[0].lane & kAffineRun) != 0;
}

// Records taken by `count` accesses stored from `stored`.
constexpr std::uint32_t stored_accesses(const MemAccess* stored, const std::uint32_t count) {
  return is_affine_run(stored, count) ? 2 : count;
}

// Whether an ALU op's dependent chain fits its run: at most `count` (1 for an empty run).
constexpr bool chain_fits_run(const TraceOp& op) {
  return op.chain <= (op.count > 0 ? op.count : 1u);
}

// Whether the accesses `op` stores lie inside `accesses` (its simdgroup's list).
inline bool accesses_in_range(const std::vector<MemAccess>& accesses, const TraceOp& op) {
  if (op.count == 0) return true;
  if (op.first_access >= accesses.size()) return false;
  return std::uint64_t{op.first_access} +
             stored_accesses(accesses.data() + op.first_access, op.count) <=
         accesses.size();
}

// Access i (i < the op's count) of the op whose accesses are stored from `stored`.
inline MemAccess access_at(const MemAccess* stored, std::uint32_t i) {
  if ((stored[0].lane & kAffineRun) == 0) return stored[i];
  MemAccess a = stored[0];
  a.lane = static_cast<std::uint8_t>((a.lane & ~kAffineRun) + i);
  a.offset += stored[1].offset * i;
  return a;
}

struct SimdgroupTrace {
  std::array<std::uint32_t, 3> threadgroup{};
  std::uint32_t simdgroup = 0;
  std::vector<TraceOp> ops;
  std::vector<MemAccess> accesses;
  friend bool operator==(const SimdgroupTrace&, const SimdgroupTrace&) = default;
};

struct LaunchTrace {
  std::uint32_t version = kTraceFormatVersion;
  std::string kernel;
  std::array<std::uint32_t, 3> threadgroups_per_grid{};
  std::array<std::uint32_t, 3> threads_per_threadgroup{};
  std::uint64_t threadgroup_memory_bytes = 0;
  std::vector<SimdgroupTrace> simdgroups;
  friend bool operator==(const LaunchTrace&, const LaunchTrace&) = default;
};

// One event of one lane between synchronization points, before lanes are merged.
struct LaneEvent {
  OpClass op = OpClass::kAlu;
  std::uint8_t kind = 0;
  std::uint8_t bytes = 0;
  std::uint16_t count = 0;
  std::uint16_t buffer = 0;  // memory: buffer index; ALU: the dependent chain (chain())
  std::uint32_t offset = 0;  // memory: byte offset; ALU: AluWork::producer (producer())

  // An ALU event keeps its chain and producer in the fields memory events use.
  static LaneEvent alu(AluKind kind, std::uint16_t count, std::uint16_t chain,
                       std::int32_t producer) {
    return {OpClass::kAlu, static_cast<std::uint8_t>(kind),     0, count,
            chain,         static_cast<std::uint32_t>(producer)};
  }
  std::uint16_t chain() const { return buffer; }
  std::int32_t producer() const { return static_cast<std::int32_t>(offset); }
};
static_assert(sizeof(LaneEvent) == 12);

// Calls emit(count, chain) for each op a run of `count` instructions with dependent chain
// `chain` becomes: chunks of at most 65535 instructions, the chain shared out in proportion
// (rounded up, at most the chunk).
template <class Emit>
void for_each_alu_chunk(std::uint32_t count, std::uint32_t chain, Emit&& emit) {
  const std::uint64_t total = count;
  const std::uint64_t whole_chain = chain < count ? chain : count;
  while (count > 0) {
    const std::uint32_t chunk = count < 0xFFFFu ? count : 0xFFFFu;
    const std::uint64_t part = (whole_chain * chunk + total - 1) / total;
    emit(static_cast<std::uint16_t>(chunk), static_cast<std::uint16_t>(part));
    count -= chunk;
  }
}

// Builds one simdgroup's stream: merges lanes' events into SIMD ops and assigns deps.
class SimdTraceBuilder {
 public:
  explicit SimdTraceBuilder(SimdgroupTrace* out) : out_(out) {}

  // Merges the lanes' pending events (consumed and cleared) into ops, in program order:
  // the lowest lane with events leads, lanes whose next event matches join it.
  void merge(std::array<std::vector<LaneEvent>*, kSimdWidth>& lanes);

  // Appends an ALU op (what merge() makes of `count` instructions of `kind`, with dependent
  // chain `chain` and operands computed from op `producer`, pending in every lane of `mask`
  // and nothing else).
  void append_alu(AluKind kind, std::uint16_t count, std::uint32_t mask, std::uint16_t chain,
                  std::int32_t producer);

  // Appends a synchronizing op (barrier, collective, matrix op) and returns its index. For
  // matrix ops, `reads` lists the slots read and `writes` the slot written (or kNone); for
  // collectives, `producer` is the newest collective whose result an operand came from.
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  std::int32_t append_sync(OpClass op, std::uint8_t kind, std::uint32_t mask,
                           const std::vector<MemAccess>& accesses,
                           const std::array<std::uint32_t, 3>& reads = {kNone, kNone, kNone},
                           std::uint32_t writes = kNone, std::int32_t producer = -1);

 private:
  // Appends `op` with its dependency: `producer` (an op whose result it consumes) or the
  // newest long-latency op, whichever is newer (docs/trace-format.md, "Dependencies").
  std::int32_t append(TraceOp op, std::int32_t producer = -1);

  SimdgroupTrace* out_;
  std::int32_t last_long_latency_ = -1;    // newest non-matrix long-latency op
  std::vector<std::int32_t> slot_writer_;  // matrix slot -> op that last wrote it
};

}  // namespace marlin::sim
