#include "model/timing/op_costs.h"

#include <string>

#include "model/common/input_error.h"
#include "model/common/invariant.h"

namespace marlin::timing {
namespace {

OpCost cost_of(const model::OpTiming& timing, Pipe pipe, const std::string& name) {
  if (timing.throughput_cycles < 1 || timing.latency_cycles < 0) {
    throw InputError("pipes." + name + ": throughput_cycles must be >= 1 and latency_cycles >= 0 " +
                     "(got " + std::to_string(timing.throughput_cycles) + ", " +
                     std::to_string(timing.latency_cycles) + ")");
  }
  return OpCost{pipe, Cycles(timing.throughput_cycles), Cycles(timing.latency_cycles)};
}

}  // namespace

OpCosts::OpCosts(const model::PipeSpec& p)
    : shuffle_(cost_of(p.shuffle, Pipe::kSimd, "shuffle")),
      reduce_(cost_of(p.simd_reduce, Pipe::kSimd, "simd_reduce")),
      matmul_f16_(cost_of(p.matmul_f16, Pipe::kFp, "matmul_f16")),
      matmul_f32_(cost_of(p.matmul_f32, Pipe::kFp, "matmul_f32")),
      matrix_move_(cost_of(p.fp16_fma, Pipe::kFp, "fp16_fma")) {
  using sim::AluKind;
  auto set = [this](AluKind kind, const OpCost& cost) {
    alu_[static_cast<std::size_t>(kind)] = cost;
  };
  const OpCost fp16 = cost_of(p.fp16_fma, Pipe::kFp, "fp16_fma");
  set(AluKind::kFp16Fma, fp16);
  set(AluKind::kFp16Add, fp16);
  set(AluKind::kFp16Mul, fp16);
  const OpCost fp32 = cost_of(p.fp32_fma, Pipe::kFp, "fp32_fma");
  set(AluKind::kFp32Fma, fp32);
  set(AluKind::kFp32Mul, fp32);
  set(AluKind::kFp32Add, cost_of(p.fp32_add, Pipe::kFp, "fp32_add"));
  const OpCost int_add = cost_of(p.int_add, Pipe::kInt, "int_add");
  set(AluKind::kIntAdd, int_add);
  set(AluKind::kIntLogic, int_add);
  set(AluKind::kIntShift, int_add);
  set(AluKind::kIntMul, cost_of(p.int_mul, Pipe::kInt, "int_mul"));
  set(AluKind::kCompareSelect, cost_of(p.fp_cmp_select, Pipe::kFp, "fp_cmp_select"));
  set(AluKind::kConvert, cost_of(p.convert, Pipe::kInt, "convert"));
  set(AluKind::kSpecial, cost_of(p.exp2_log2, Pipe::kSpecial, "exp2_log2"));
  set(AluKind::kReciprocal, cost_of(p.reciprocal, Pipe::kSpecial, "reciprocal"));
  set(AluKind::kRsqrt, cost_of(p.rsqrt, Pipe::kSpecial, "rsqrt"));
  static_assert(static_cast<std::size_t>(sim::OpClass::kMatrixCopy) + 1 == kTraitClasses,
                "the traits table has a row for every op class");
  static_assert(sim::kAluKindCount <= kTraitKinds, "every ALU kind is in the traits table");
  for (std::size_t c = 0; c < kTraitClasses; ++c) {
    for (std::size_t kind = 0; kind < kTraitKinds; ++kind) {
      sim::TraceOp op;
      op.op = static_cast<sim::OpClass>(c);
      op.kind = static_cast<std::uint8_t>(kind);
      if (op.op == sim::OpClass::kAlu && kind >= sim::kAluKindCount) continue;  // no such op
      traits_[c * kTraitKinds + kind] = compute_traits(op);
    }
  }
}

OpCosts::Traits OpCosts::compute_traits(const sim::TraceOp& op) const {
  Pipe pipe = Pipe::kNone;
  if (op.op == sim::OpClass::kAlu) {
    pipe = alu(op.kind).pipe;
  } else if (sim::is_compute(op.op)) {
    pipe = compute(op).pipe;
  } else if (uses_threadgroup_memory(op)) {
    pipe = Pipe::kThreadgroupMemory;
  }
  return Traits{.pipe = pipe, .wait_class = wait_class(op)};
}

OpCost OpCosts::compute(const sim::TraceOp& op) const {
  switch (op.op) {
    case sim::OpClass::kShuffle:
    case sim::OpClass::kVote:
      return shuffle_;
    case sim::OpClass::kReduction:
      return reduce_;
    case sim::OpClass::kMatrixMultiply:
      return op.kind == 1 ? matmul_f32_ : matmul_f16_;
    case sim::OpClass::kMatrixFill:
    case sim::OpClass::kMatrixCopy:
      return matrix_move_;
    default:
      MARLIN_CHECK(false, "compute cost asked only for compute ops");
  }
  return {};
}

StallClass OpCosts::wait_class(const sim::TraceOp& op) {
  switch (op.op) {
    case sim::OpClass::kMatrixMultiply:
      return StallClass::kMatrixBusy;
    case sim::OpClass::kThreadgroupLoad:
    case sim::OpClass::kThreadgroupStore:
      return StallClass::kThreadgroupMemoryWait;
    case sim::OpClass::kDeviceLoad:
    case sim::OpClass::kDeviceStore:
    case sim::OpClass::kAtomic:
    case sim::OpClass::kMatrixLoad:
    case sim::OpClass::kMatrixStore:
      return uses_threadgroup_memory(op) ? StallClass::kThreadgroupMemoryWait
                                         : StallClass::kMemoryWait;
    case sim::OpClass::kThreadgroupBarrier:
    case sim::OpClass::kSimdBarrier:
      return StallClass::kBarrierWait;
    default:
      return StallClass::kAluBusy;
  }
}

bool OpCosts::uses_threadgroup_memory(const sim::TraceOp& op) {
  switch (op.op) {
    case sim::OpClass::kThreadgroupLoad:
    case sim::OpClass::kThreadgroupStore:
      return true;
    case sim::OpClass::kAtomic:
    case sim::OpClass::kMatrixLoad:
    case sim::OpClass::kMatrixStore:
      return op.kind == static_cast<std::uint8_t>(sim::Space::kThreadgroup);
    default:
      return false;
  }
}

}  // namespace marlin::timing
