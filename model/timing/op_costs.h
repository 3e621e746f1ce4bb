// OpCosts: how each trace op maps onto a scheduler's pipes, its issue timing (PipeSpec) and the
// stall class charged to a simdgroup waiting for it.
//
// Contract: built once from the profile's PipeSpec; lookups are table reads (no branches on
// strings, no allocation). The mapping is documented in docs/timing-model.md ("Pipes").
#pragma once

#include <array>
#include <cstdint>

#include "model/common/invariant.h"
#include "model/device/device_spec.h"
#include "model/timing/cycles.h"
#include "model/timing/stall_class.h"
#include "sim/runtime/trace.h"

namespace marlin::timing {

// Per-scheduler issue pipes, plus the core's threadgroup-memory pipe and "no pipe".
enum class Pipe : std::uint8_t {
  kFp,                 // FP16/FP32 arithmetic, compare/select, matrix multiply, matrix fill/copy
  kInt,                // integer add/logic/shift/multiply, conversions
  kSpecial,            // transcendental functions: exp2/log2, reciprocal, rsqrt
  kSimd,               // shuffles, broadcasts, reductions, votes
  kThreadgroupMemory,  // per core, shared by its schedulers
  kNone,               // device memory and barriers: no pipe to wait for
};

inline constexpr std::size_t kSchedulerPipeCount = 4;  // kFp .. kSimd

struct OpCost {
  Pipe pipe = Pipe::kNone;
  Cycles throughput;  // the pipe accepts the next instruction this much later
  Cycles latency;     // result ready this much after issue
};

class OpCosts {
 public:
  // Throws InputError if a throughput is below 1 or a latency below 0.
  explicit OpCosts(const model::PipeSpec& pipes);

  // Cost of one instruction of an ALU op of this kind (TraceOp::kind of OpClass::kAlu).
  [[nodiscard]] const OpCost& alu(std::uint8_t kind) const {
    MARLIN_CHECK(kind < sim::kAluKindCount, "ALU op kind is an AluKind");
    return alu_[kind];
  }
  // Cost of a non-ALU compute op (shuffle, reduction, vote, matrix multiply/fill/copy).
  [[nodiscard]] OpCost compute(const sim::TraceOp& op) const;

  // The class charged while waiting for this op's result.
  static StallClass wait_class(const sim::TraceOp& op);

  // What the replay reads of an op at every step, by its class and kind: its pipe and the
  // class charged while waiting for it. A table read for kinds below kTraitKinds, computed
  // otherwise; the op is one the trace checks accept (an ALU op's kind is an AluKind).
  struct Traits {
    Pipe pipe = Pipe::kNone;
    StallClass wait_class = StallClass::kAluBusy;
  };
  [[nodiscard]] Traits traits(const sim::TraceOp& op) const {
    const auto op_class = static_cast<std::size_t>(op.op);
    if (op_class < kTraitClasses && op.kind < kTraitKinds) {
      return traits_[op_class * kTraitKinds + op.kind];
    }
    return compute_traits(op);
  }
  // True if the op's memory is threadgroup memory (threadgroup loads/stores, threadgroup
  // atomics, matrix loads/stores whose kind is Space::kThreadgroup).
  static bool uses_threadgroup_memory(const sim::TraceOp& op);

 private:
  static constexpr std::size_t kTraitClasses = 16;  // OpClass values
  static constexpr std::size_t kTraitKinds = 16;    // AluKind, Space and matrix kinds fit
  [[nodiscard]] Traits compute_traits(const sim::TraceOp& op) const;

  std::array<Traits, kTraitClasses * kTraitKinds> traits_{};
  std::array<OpCost, sim::kAluKindCount> alu_{};
  OpCost shuffle_;
  OpCost reduce_;
  OpCost matmul_f16_;
  OpCost matmul_f32_;
  OpCost matrix_move_;
};

}  // namespace marlin::timing
