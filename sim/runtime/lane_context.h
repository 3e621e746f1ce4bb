// LaneContext: the state of one simulated GPU thread (a "lane"), shared between the
// metal_stdlib shim (inline code compiled into kernels) and the executor.
//
// Contract: while a kernel runs on a host thread, `current_lane` points at the lane being
// executed (nullptr otherwise, so shim value types also work in host code). The shim only
// touches the fields declared here and calls the out-of-line hooks below; everything else
// about threadgroups and simdgroups stays private to the executor.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <source_location>

namespace marlin::sim {

// Apple GPUs execute 32 threads per simdgroup; the shim's simd_vote and the trace's lane
// masks are built on this width.
inline constexpr std::uint32_t kSimdWidth = 32;

// Buffer id used in traces and diagnostics for threadgroup memory.
inline constexpr std::uint16_t kThreadgroupBufferId = 0xFFFF;

// A lane's simdgroup_matrix slots in use: bit i = slot i.
using MatrixSlotSet = std::array<std::uint64_t, 4>;

enum class Space : std::uint8_t { kDevice, kConstant, kThreadgroup };

// ALU work by kind, counted from what executes (see docs/trace-format.md).
enum class AluKind : std::uint8_t {
  kFp16Fma,
  kFp16Add,
  kFp16Mul,
  kFp32Fma,
  kFp32Add,
  kFp32Mul,
  kIntAdd,
  kIntLogic,
  kIntShift,
  kIntMul,
  kCompareSelect,
  kConvert,
  kSpecial,     // exp, exp2, log, log2, pow, sin, cos, tan, tanh: timed as exp2/log2
  kReciprocal,  // floating-point division
  kRsqrt,       // rsqrt, sqrt
  kCount
};
inline constexpr std::size_t kAluKindCount = static_cast<std::size_t>(AluKind::kCount);

// The ALU work a lane did since its previous trace event, by kind: instructions executed, and
// the longest dependent chain among them (docs/trace-format.md, "Dependent chains"). Chain 0
// means no instruction of that kind consumed another one's result in this segment. `kinds`
// has bit k set when count[k] != 0: the engine reads and clears only those entries.
struct AluWork {
  std::array<std::uint32_t, kAluKindCount> count{};
  std::array<std::uint32_t, kAluKindCount> chain{};
  std::uint32_t kinds = 0;
  // The newest trace op (a shuffle or reduction) whose result a counted instruction of this
  // work consumed (ValueTag::producer); -1: none.
  std::int32_t producer = -1;

  // Back to no work, touching only the kinds that had some.
  void clear() {
    for (; kinds != 0; kinds &= kinds - 1) {
      const auto k = static_cast<std::size_t>(std::countr_zero(kinds));
      count[k] = 0;
      chain[k] = 0;
    }
    producer = -1;
  }
};

// Where a register value sits in its lane's dependent chains: the ALU segment it was computed
// in (LaneContext::segment), the kind of the counted instruction that produced it, and the
// length of the longest chain of instructions of that kind, each consuming the previous one's
// result, that ends in it within that segment (saturating at 65535). Constants, loaded values
// and values of earlier segments start no chain. `producer` is the index, in the simdgroup's
// trace, of the newest shuffle or reduction whose result the value was computed from (-1:
// none); the trace makes ops that consume it wait for that op.
struct ValueTag {
  std::uint32_t segment = 0;
  std::uint16_t depth = 0;
  AluKind kind = AluKind::kCount;
  std::int32_t producer = -1;
};

// A bound device/constant buffer or one threadgroup allocation: what a shim pointer knows
// about the memory it points into, for bounds checks and trace addresses.
struct Region {
  std::byte* base = nullptr;
  std::size_t bytes = 0;
  std::uint32_t arena_offset = 0;  // threadgroup only: offset of `base` in the arena
  std::uint16_t buffer_id = 0;     // [[buffer(n)]] index, or kThreadgroupBufferId
  Space space = Space::kDevice;
  const char* name = "";  // declaration or parameter name for diagnostics
};

enum class AccessKind : std::uint8_t { kLoad, kStore, kAtomic };

class ThreadgroupRun;  // executor-private
struct SimdgroupRun;   // executor-private

struct LaneContext {
  // Built-in positions (Metal attribute values), all as 3D.
  std::array<std::uint32_t, 3> thread_in_threadgroup{};
  std::array<std::uint32_t, 3> threadgroup_in_grid{};
  std::array<std::uint32_t, 3> thread_in_grid{};
  std::array<std::uint32_t, 3> threads_per_threadgroup{};
  std::array<std::uint32_t, 3> threadgroups_per_grid{};
  std::uint32_t linear_id = 0;  // index within the threadgroup
  std::uint32_t simdgroup = 0;
  std::uint32_t lane = 0;  // thread_index_in_simdgroup
  std::uint32_t simdgroups_per_threadgroup = 0;

  // ALU instructions executed since the last flush into the lane's trace stream, and the
  // segment they belong to (starts at 1; each flush starts a new one, so a ValueTag of
  // segment 0 never counts as current).
  AluWork alu;
  std::uint32_t segment = 1;
  AluKind last_alu = AluKind::kCount;  // kind of the newest counted instruction
  // False in a threadgroup whose traces and counts are those of another (a translated copy
  // that runs for its results): the shim's hooks then count nothing and tag nothing.
  bool counting = true;
  std::int32_t last_collective = -1;  // trace index of the lane's newest resolved collective
  // Lane-local allocator of simdgroup_matrix slots (bit i set = slot i in use).
  MatrixSlotSet matrix_slots_used{};

  ThreadgroupRun* threadgroup = nullptr;
  SimdgroupRun* simd = nullptr;
};

extern constinit thread_local LaneContext* current_lane;

// The shim's per-instruction hooks below run for every counted operation of a kernel: they
// are forced inline so that counting stays a few instructions in the kernel's own code.
#define MARLIN_HOOK [[gnu::always_inline]] inline

MARLIN_HOOK void count_alu(AluKind kind, std::uint32_t n = 1) {
  if (LaneContext* lane = current_lane; lane != nullptr && lane->counting) {
    lane->alu.count[static_cast<std::size_t>(kind)] += n;
    lane->alu.kinds |= 1u << static_cast<std::uint32_t>(kind);
    lane->last_alu = kind;
  }
}

// The chain an instruction of `kind` extends when it consumes a value tagged `tag`: the
// value's depth if an instruction of the same kind produced it in the current segment, else 0.
MARLIN_HOOK std::uint32_t depth_for(const LaneContext& lane, ValueTag tag, AluKind kind) {
  return tag.segment == lane.segment && tag.kind == kind ? tag.depth : 0;
}

// Records the lane's newest counted instruction, of `kind`, whose operands extend a chain of
// `operand_depth` (depth_for) and were computed from collective op `producer`, and returns its
// result's tag.
MARLIN_HOOK ValueTag chain_result(LaneContext& lane, AluKind kind, std::uint32_t operand_depth,
                                  std::int32_t producer) {
  const auto depth =
      static_cast<std::uint16_t>(operand_depth < 0xFFFFu ? operand_depth + 1 : 0xFFFFu);
  std::uint32_t& chain = lane.alu.chain[static_cast<std::size_t>(kind)];
  chain = chain > depth ? chain : depth;
  lane.alu.producer = lane.alu.producer > producer ? lane.alu.producer : producer;
  return {lane.segment, depth, kind, producer};
}

// Ends the lane's ALU segment: its counts were taken (flushed or recorded elsewhere).
inline void clear_alu(LaneContext& lane) {
  lane.alu.clear();
  ++lane.segment;
}

// Memory access through a shim pointer: bounds check, sanitizer shadow, trace record.
// Throws KernelFault (after recording a diagnostic) on an out-of-bounds access.
void on_access(LaneContext& lane, const Region& region, const void* address, std::uint32_t bytes,
               AccessKind kind);

inline void access(const Region* region, const void* address, std::uint32_t bytes,
                   AccessKind kind) {
  if (LaneContext* lane = current_lane; lane != nullptr && region != nullptr) {
    on_access(*lane, *region, address, bytes, kind);
  }
}

// ---- Simdgroup collectives -------------------------------------------------------------
// A lane deposits its operand in the simdgroup exchange, waits until every live lane of its
// simdgroup arrived at the same call site, and the executor runs `apply` once.
struct SimdExchange {
  alignas(16) std::array<std::array<std::byte, 16>, kSimdWidth> in{};
  alignas(16) std::array<std::array<std::byte, 16>, kSimdWidth> out{};
  std::array<std::uint32_t, kSimdWidth> param{};
  std::uint32_t active_mask = 0;  // lanes that take part (live lanes)
  const void* op = nullptr;       // op descriptor of the first active lane (matrix ops)
};

// Trace classes of synchronizing operations (also used by the trace writer).
enum class SyncClass : std::uint8_t {
  kShuffle,
  kReduction,
  kVote,
  kSimdBarrier,
  kMatrixLoad,
  kMatrixStore,
  kMatrixMultiply,
  kMatrixFill,
  kMatrixCopy
};

using ApplyFn = void (*)(SimdExchange& exchange, SimdgroupRun& simd, LaneContext& performer);

struct CollectiveCall {
  ApplyFn apply = nullptr;
  SyncClass sync_class = SyncClass::kShuffle;
  std::source_location site;
  const void* op = nullptr;  // lane-owned descriptor, must compare equal across lanes
  std::size_t op_bytes = 0;
  std::int32_t operand_producer = -1;  // ValueTag::producer of the lane's operand
  std::uint8_t trace_kind = 0;         // TraceOp::kind (mem_flags, or Space of a matrix load/store)
  // Matrix ops: slots read and written, for the trace's exact matrix dependencies.
  std::array<std::uint32_t, 3> matrix_reads{0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  std::uint32_t matrix_write = 0xFFFFFFFFu;
};

// Waits at a simdgroup collective; returns this lane's result slot in the exchange.
const std::byte* simd_collective(const CollectiveCall& call, const void* operand,
                                 std::size_t operand_bytes, std::uint32_t param);

// threadgroup_barrier / simdgroup_barrier.
void threadgroup_barrier_wait(std::uint32_t mem_flags, std::source_location site);

// Threadgroup memory: the region of kernel-scope declaration `index`, and of the
// [[threadgroup(n)]] argument `index`.
const Region& threadgroup_decl_region(std::uint32_t index, const char* name);

// simdgroup_matrix storage shared by the lanes of a simdgroup (64 elements of 4 bytes).
struct MatrixStorage {
  alignas(16) std::array<float, 64> f{};
};
MatrixStorage& matrix_slot(SimdgroupRun& simd, std::uint32_t slot);
std::uint32_t allocate_matrix_slot(LaneContext& lane);
void free_matrix_slot(LaneContext& lane, std::uint32_t slot);

// The lowest free slot of a lane's simdgroup_matrix slots, taken, or kNoMatrixSlot when all
// 256 are in use; and a slot given back.
inline constexpr std::uint32_t kNoMatrixSlot = 0xFFFFFFFFu;
inline std::uint32_t take_matrix_slot(MatrixSlotSet& used) {
  for (std::uint32_t w = 0; w < used.size(); ++w) {
    if (used[w] != ~std::uint64_t{0}) {
      const auto bit = static_cast<std::uint32_t>(std::countr_one(used[w]));
      used[w] |= std::uint64_t{1} << bit;
      return w * 64 + bit;
    }
  }
  return kNoMatrixSlot;
}
inline void give_back_matrix_slot(MatrixSlotSet& used, std::uint32_t slot) {
  if (slot < 256) used[slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
}

// Trace hook used by matrix loads/stores performed once for a simdgroup.
void on_matrix_access(LaneContext& performer, const Region& region, const void* address,
                      std::uint32_t bytes, std::uint32_t row, AccessKind kind);

}  // namespace marlin::sim
