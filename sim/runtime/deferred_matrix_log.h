// The matrix ops a simdgroup's lanes went past without waiting (docs/engine.md, "Matrix
// operations without waiting"). Private to sim/runtime.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <vector>

#include "sim/runtime/lane_context.h"

namespace marlin::sim {

// A matrix op that touches only matrix slots (multiply, fill, copy) or reads memory into one
// (load), reached by some lanes of a simdgroup and performed once for them. Lanes do not wait
// at it: the first lane to reach it records it, later lanes check they reach the same op. Its
// result can only be observed through a synchronizing op (a matrix store, a collective, a
// barrier), and those resolve after the pending matrix ops their lanes went past are
// performed, in program order. A lane past a pending load waits before its next threadgroup
// memory access or device write (ThreadgroupRun::wait_for_loads), so the load reads memory
// as it is when every lane has arrived, as if they had waited at it.
//
// Two cache lines: what every arriving lane checks. The work each lane did since its previous
// sync or matrix op is classified as in SimdgroupRun: none (`alu_idle`), only ALU counts equal
// to DeferredMatrixLog::alu_work[work_index] (`alu_same`), or more (`slow`: its events up to
// DeferredMatrixOpDetail::event_end[l] in LaneRun::events).
struct alignas(64) DeferredMatrixOp {
  static constexpr std::size_t kMaxOpBytes = 48;  // a matrix load's descriptor
  ApplyFn apply = nullptr;
  std::source_location site;
  std::array<std::byte, kMaxOpBytes> op{};  // the lane-owned descriptor, copied
  std::uint32_t lanes = 0;                  // lanes that reached it (bit l = lane l)
  std::uint32_t alu_idle = 0;
  std::uint32_t alu_same = 0;
  std::uint32_t slow = 0;
  std::uint32_t work_index = 0;  // index into DeferredMatrixLog::alu_work
  std::uint32_t matrix_write = 0;
  std::uint8_t op_bytes = 0;
  SyncClass sync_class = SyncClass::kMatrixMultiply;
  std::uint8_t trace_kind = 0;
};
static_assert(sizeof(DeferredMatrixOp) == 128);

// What is read only when the op is performed, or written for lanes with more than ALU work.
struct DeferredMatrixOpDetail {
  std::array<std::uint32_t, 3> matrix_reads{};
  std::array<std::uint32_t, kSimdWidth> event_end{};
};

// A simdgroup's matrix ops reached and not performed yet, in program order: the first `count`
// entries of `ops` and `details` (the vectors keep their capacity from one threadgroup to
// the next), and the distinct ALU counts they name (loop control repeats the same counts).
// `first_load` is the index of the first pending load (kNoLoad: none): a lane whose
// LaneRun::deferred_reached exceeds it went past a load that has not read memory yet.
struct DeferredMatrixLog {
  static constexpr std::uint32_t kNoLoad = 0xFFFFFFFFu;
  std::vector<DeferredMatrixOp> ops;
  std::vector<DeferredMatrixOpDetail> details;
  std::vector<AluWork> alu_work;
  std::uint32_t count = 0;
  std::uint32_t first_load = kNoLoad;
};

}  // namespace marlin::sim
