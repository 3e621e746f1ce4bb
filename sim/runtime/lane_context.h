// LaneContext: the state of one simulated GPU thread (a "lane"), shared between the
// metal_stdlib shim (inline code compiled into kernels) and the executor.
//
// Contract: while a kernel runs on a host thread, `current_lane` points at the lane being
// executed (nullptr otherwise, so shim value types also work in host code). The shim only
// touches the fields declared here and calls the out-of-line hooks below; everything else
// about threadgroups and simdgroups stays private to the executor.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <source_location>

namespace marlin::sim {

// Apple GPUs execute 32 threads per simdgroup; the shim's simd_vote and the trace's lane
// masks are built on this width.
inline constexpr std::uint32_t kSimdWidth = 32;

// Buffer id used in traces and diagnostics for threadgroup memory.
inline constexpr std::uint16_t kThreadgroupBufferId = 0xFFFF;

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

  // ALU instructions executed since the last flush into the lane's trace stream.
  std::array<std::uint32_t, kAluKindCount> alu{};
  // Lane-local allocator of simdgroup_matrix slots (bit i set = slot i in use).
  std::array<std::uint64_t, 4> matrix_slots_used{};

  ThreadgroupRun* threadgroup = nullptr;
  SimdgroupRun* simd = nullptr;
};

extern constinit thread_local LaneContext* current_lane;

inline void count_alu(AluKind kind, std::uint32_t n = 1) {
  if (LaneContext* lane = current_lane) {
    lane->alu[static_cast<std::size_t>(kind)] += n;
  }
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
  std::uint8_t trace_kind = 0;  // TraceOp::kind (mem_flags, or Space of a matrix load/store)
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

// Trace hook used by matrix loads/stores performed once for a simdgroup.
void on_matrix_access(LaneContext& performer, const Region& region, const void* address,
                      std::uint32_t bytes, std::uint32_t row, AccessKind kind);

}  // namespace marlin::sim
