// How the engine compares lanes' collective calls, and the trace op class of a collective.
// Private to sim/runtime.
#pragma once

#include <cstdint>
#include <cstring>
#include <source_location>

#include "sim/runtime/lane_context.h"
#include "sim/runtime/trace.h"

namespace marlin::sim::detail {

inline OpClass op_class_of(SyncClass c) {
  switch (c) {
    case SyncClass::kShuffle:
      return OpClass::kShuffle;
    case SyncClass::kReduction:
      return OpClass::kReduction;
    case SyncClass::kVote:
      return OpClass::kVote;
    case SyncClass::kSimdBarrier:
      return OpClass::kSimdBarrier;
    case SyncClass::kMatrixLoad:
      return OpClass::kMatrixLoad;
    case SyncClass::kMatrixStore:
      return OpClass::kMatrixStore;
    case SyncClass::kMatrixMultiply:
      return OpClass::kMatrixMultiply;
    case SyncClass::kMatrixFill:
      return OpClass::kMatrixFill;
    case SyncClass::kMatrixCopy:
      return OpClass::kMatrixCopy;
  }
  return OpClass::kShuffle;
}

// Byte equality of two lane-owned operand descriptors (small, so an inline loop beats a
// library call on this hot path).
inline bool same_bytes(const void* a, const void* b, std::size_t n) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  std::uint64_t diff = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t u = 0;
    std::uint64_t v = 0;
    std::memcpy(&u, x + i, 8);
    std::memcpy(&v, y + i, 8);
    diff |= u ^ v;
  }
  for (; i < n; ++i) diff |= static_cast<std::uint64_t>(x[i] ^ y[i]);
  return diff == 0;
}

inline bool same_site(const std::source_location& a, const std::source_location& b) {
  // One call expression yields the same object each time: equal bytes are the same site.
  if (std::memcmp(&a, &b, sizeof a) == 0) return true;
  return a.line() == b.line() && a.column() == b.column() &&
         (a.file_name() == b.file_name() || std::strcmp(a.file_name(), b.file_name()) == 0);
}

// Two lanes' calls are the same collective: same site, operation and operand descriptor.
inline bool same_call(const CollectiveCall& a, const CollectiveCall& b) {
  return a.apply == b.apply && same_site(a.site, b.site) && a.op_bytes == b.op_bytes &&
         (a.op_bytes == 0 || same_bytes(a.op, b.op, a.op_bytes));
}

}  // namespace marlin::sim::detail
