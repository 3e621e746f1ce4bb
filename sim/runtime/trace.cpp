#include "sim/runtime/trace.h"

#include <algorithm>
#include <bit>

namespace marlin::sim {

const char* op_class_name(OpClass op) {
  switch (op) {
    case OpClass::kAlu:
      return "alu";
    case OpClass::kDeviceLoad:
      return "device_load";
    case OpClass::kDeviceStore:
      return "device_store";
    case OpClass::kThreadgroupLoad:
      return "threadgroup_load";
    case OpClass::kThreadgroupStore:
      return "threadgroup_store";
    case OpClass::kAtomic:
      return "atomic";
    case OpClass::kThreadgroupBarrier:
      return "threadgroup_barrier";
    case OpClass::kSimdBarrier:
      return "simdgroup_barrier";
    case OpClass::kShuffle:
      return "shuffle";
    case OpClass::kReduction:
      return "reduction";
    case OpClass::kVote:
      return "vote";
    case OpClass::kMatrixLoad:
      return "matrix_load";
    case OpClass::kMatrixStore:
      return "matrix_store";
    case OpClass::kMatrixMultiply:
      return "matrix_multiply";
    case OpClass::kMatrixFill:
      return "matrix_fill";
    case OpClass::kMatrixCopy:
      return "matrix_copy";
  }
  return "?";
}

const char* alu_kind_name(AluKind kind) {
  switch (kind) {
    case AluKind::kFp16Fma:
      return "fp16_fma";
    case AluKind::kFp16Add:
      return "fp16_add";
    case AluKind::kFp16Mul:
      return "fp16_mul";
    case AluKind::kFp32Fma:
      return "fp32_fma";
    case AluKind::kFp32Add:
      return "fp32_add";
    case AluKind::kFp32Mul:
      return "fp32_mul";
    case AluKind::kIntAdd:
      return "int_add";
    case AluKind::kIntLogic:
      return "int_logic";
    case AluKind::kIntShift:
      return "int_shift";
    case AluKind::kIntMul:
      return "int_mul";
    case AluKind::kCompareSelect:
      return "compare_select";
    case AluKind::kConvert:
      return "convert";
    case AluKind::kSpecial:
      return "special";
    case AluKind::kReciprocal:
      return "reciprocal";
    case AluKind::kRsqrt:
      return "rsqrt";
    case AluKind::kCount:
      break;
  }
  return "?";
}

std::int32_t SimdTraceBuilder::append(TraceOp op, std::int32_t producer) {
  // Dependency rule (docs/trace-format.md): loads wait for nothing beyond in-order issue;
  // every other non-matrix op waits for the newest earlier load or atomic, or for the
  // collective whose result it consumes when that is newer.
  const bool matrix = op.op == OpClass::kMatrixLoad || op.op == OpClass::kMatrixStore ||
                      op.op == OpClass::kMatrixMultiply || op.op == OpClass::kMatrixFill ||
                      op.op == OpClass::kMatrixCopy;
  if (!matrix) op.dep = is_load(op.op) ? -1 : std::max(last_long_latency_, producer);
  const auto index = static_cast<std::int32_t>(out_->ops.size());
  out_->ops.push_back(op);
  if (!matrix && is_long_latency(op.op)) last_long_latency_ = index;
  return index;
}

namespace {

// Stores the `count` accesses at accesses[first..] as an affine run when they form one
// (docs/trace-format.md, "Affine runs"); otherwise leaves them one record each.
void compact_accesses(std::vector<MemAccess>& accesses, std::size_t first, std::uint32_t count) {
  if (count < 3) return;
  const MemAccess* a = accesses.data() + first;
  const std::uint32_t stride = a[1].offset - a[0].offset;
  if (a[0].lane >= kAffineRun || a[0].lane + count > kAffineRun) return;
  for (std::uint32_t i = 1; i < count; ++i) {
    if (a[i].buffer != a[0].buffer || a[i].bytes != a[0].bytes || a[i].lane != a[0].lane + i ||
        a[i].offset - a[0].offset != stride * i) {
      return;
    }
  }
  accesses[first].lane |= kAffineRun;
  accesses[first + 1] = MemAccess{stride, 0, 0, 0};
  accesses.resize(first + 2);
}

}  // namespace

void SimdTraceBuilder::merge(std::array<std::vector<LaneEvent>*, kSimdWidth>& lanes) {
  // Cursors into the lanes' events; `live` has a bit for each lane with events left.
  std::array<const LaneEvent*, kSimdWidth> next{};
  std::array<const LaneEvent*, kSimdWidth> end{};
  std::uint32_t live = 0;
  for (std::uint32_t l = 0; l < kSimdWidth; ++l) {
    if (lanes[l] == nullptr || lanes[l]->empty()) continue;
    next[l] = lanes[l]->data();
    end[l] = next[l] + lanes[l]->size();
    live |= 1u << l;
  }
  while (live != 0) {
    const auto leader = static_cast<std::uint32_t>(std::countr_zero(live));
    const LaneEvent head = *next[leader];
    const bool memory = is_lane_memory(head.op);
    TraceOp op;
    op.op = head.op;
    op.kind = head.kind;
    if (memory) {
      op.first_access = static_cast<std::uint32_t>(out_->accesses.size());
    } else {
      op.chain = 0;
    }
    std::int32_t producer = -1;
    for (std::uint32_t rest = live; rest != 0; rest &= rest - 1) {
      const auto l = static_cast<std::uint32_t>(std::countr_zero(rest));
      const LaneEvent& e = *next[l];
      if (e.op != head.op || e.kind != head.kind || (memory && e.buffer != head.buffer)) continue;
      op.mask |= 1u << l;
      if (e.op == OpClass::kAlu) {
        op.count = std::max(op.count, e.count);
        op.chain = std::max<std::uint32_t>(op.chain, e.chain());
        producer = std::max(producer, e.producer());
      } else {
        out_->accesses.push_back(
            MemAccess{e.offset, e.buffer, e.bytes, static_cast<std::uint8_t>(l)});
        ++op.count;
      }
      if (++next[l] == end[l]) live &= ~(1u << l);
    }
    if (memory) compact_accesses(out_->accesses, op.first_access, op.count);
    append(op, producer);
  }
  for (auto* events : lanes) {
    if (events != nullptr) events->clear();
  }
}

void SimdTraceBuilder::append_alu(AluKind kind, std::uint16_t count, std::uint32_t mask,
                                  std::uint16_t chain, std::int32_t producer) {
  TraceOp op;
  op.op = OpClass::kAlu;
  op.kind = static_cast<std::uint8_t>(kind);
  op.count = count;
  op.mask = mask;
  op.chain = chain;
  append(op, producer);
}

std::int32_t SimdTraceBuilder::append_sync(OpClass op_class, std::uint8_t kind, std::uint32_t mask,
                                           const std::vector<MemAccess>& accesses,
                                           const std::array<std::uint32_t, 3>& reads,
                                           std::uint32_t writes, std::int32_t producer) {
  TraceOp op;
  op.op = op_class;
  op.kind = kind;
  op.mask = mask;
  op.count = static_cast<std::uint16_t>(accesses.size());
  op.first_access = static_cast<std::uint32_t>(out_->accesses.size());
  out_->accesses.insert(out_->accesses.end(), accesses.begin(), accesses.end());
  compact_accesses(out_->accesses, op.first_access, op.count);
  // Matrix ops depend exactly on the ops that last wrote the slots they read.
  std::int32_t dep = -1;
  for (std::uint32_t slot : reads) {
    if (slot != kNone && slot < slot_writer_.size()) dep = std::max(dep, slot_writer_[slot]);
  }
  op.dep = dep;
  const std::int32_t index = append(op, producer);
  if (writes != kNone) {
    if (slot_writer_.size() <= writes) slot_writer_.resize(writes + 1, -1);
    slot_writer_[writes] = index;
  }
  return index;
}

}  // namespace marlin::sim
