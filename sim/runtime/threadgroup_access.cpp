// ThreadgroupRun's memory checks: bounds, the threadgroup-memory sanitizer and trace events
// for every access through a shim pointer and every row of a simdgroup matrix load/store.
#include <fmt/format.h>

#include <algorithm>

#include "sim/runtime/diagnostic_text.h"
#include "sim/runtime/threadgroup_run.h"

namespace marlin::sim {

using detail::region_text;
using detail::xyz;

void ThreadgroupRun::access(LaneContext& lane, const Region& region, const void* address,
                            std::uint32_t bytes, AccessKind kind) {
  const bool tg = region.space == Space::kThreadgroup;
  // A pending matrix load must read memory before this lane writes it, and before it touches
  // threadgroup memory at all, so the race sanitizer sees the access after the load.
  if ((tg || kind != AccessKind::kLoad) && past_pending_load(lane)) wait_for_loads(lane);
  const auto* p = static_cast<const std::byte*>(address);
  const std::ptrdiff_t offset = p - region.base;
  if (p < region.base || static_cast<std::size_t>(offset) + bytes > region.bytes) {
    Diagnostic d = make_diagnostic(DiagnosticKind::kOutOfBounds, &lane);
    d.buffer = region.buffer_id;
    d.region = region.name;
    d.offset = offset;
    d.bytes = bytes;
    d.message = fmt::format(
        "kernel '{}': out-of-bounds {} of {} bytes at byte offset {} of {} ({} bytes), thread "
        "{} of threadgroup {}",
        plan_.kernel->name,
        kind == AccessKind::kLoad ? "load" : (kind == AccessKind::kStore ? "store" : "atomic"),
        bytes, offset, region_text(region), region.bytes, xyz(lane.thread_in_threadgroup),
        xyz(position_));
    fatal(std::move(d));
  }
  if (tg && checking_) check_shadow(lane, region, static_cast<std::uint32_t>(offset), bytes, kind);
  flush_alu(lane);
  if (!tracing_) return;
  LaneEvent e;
  e.op = kind == AccessKind::kAtomic ? OpClass::kAtomic
         : tg ? (kind == AccessKind::kLoad ? OpClass::kThreadgroupLoad : OpClass::kThreadgroupStore)
              : (kind == AccessKind::kLoad ? OpClass::kDeviceLoad : OpClass::kDeviceStore);
  e.kind = static_cast<std::uint8_t>(region.space);
  e.bytes = static_cast<std::uint8_t>(std::min<std::uint32_t>(bytes, 255));
  e.buffer = region.buffer_id;
  e.offset = static_cast<std::uint32_t>(tg ? region.arena_offset + offset : offset);
  runs_[lane.linear_id].events.push_back(e);
}

void ThreadgroupRun::matrix_access(LaneContext& performer, const Region& region,
                                   const void* address, std::uint32_t bytes, std::uint32_t row,
                                   AccessKind kind) {
  const auto* p = static_cast<const std::byte*>(address);
  const std::ptrdiff_t offset = p - region.base;
  if (p < region.base || static_cast<std::size_t>(offset) + bytes > region.bytes) {
    Diagnostic d = make_diagnostic(DiagnosticKind::kOutOfBounds, &performer);
    d.buffer = region.buffer_id;
    d.region = region.name;
    d.offset = offset;
    d.bytes = bytes;
    d.message = fmt::format(
        "kernel '{}': out-of-bounds simdgroup_{} row {} ({} bytes at byte offset {}) of {} ({} "
        "bytes), simdgroup {} of threadgroup {}",
        plan_.kernel->name, kind == AccessKind::kLoad ? "load" : "store", row, bytes, offset,
        region_text(region), region.bytes, performer.simdgroup, xyz(position_));
    fatal(std::move(d));
  }
  const bool tg = region.space == Space::kThreadgroup;
  if (tg && checking_) {
    check_shadow(performer, region, static_cast<std::uint32_t>(offset), bytes, kind);
  }
  if (!tracing_) return;
  MemAccess a;
  a.offset = static_cast<std::uint32_t>(tg ? region.arena_offset + offset : offset);
  a.buffer = region.buffer_id;
  a.bytes = static_cast<std::uint8_t>(std::min<std::uint32_t>(bytes, 255));
  a.lane = static_cast<std::uint8_t>(row);
  performer.simd->op_accesses.push_back(a);
}

void ThreadgroupRun::check_shadow(LaneContext& lane, const Region& region, std::uint32_t offset,
                                  std::uint32_t bytes, AccessKind kind) {
  ShadowAccess a;
  a.thread = lane.linear_id;
  a.simdgroup = lane.simdgroup;
  a.simd_epoch = lane.simd->sync_epoch;
  a.write = kind != AccessKind::kLoad;
  a.atomic = kind == AccessKind::kAtomic;
  // Bytes that share a verdict are checked at once: a report (once per kind and declaration)
  // can only come from the first.
  worker_.shadow.access(region.arena_offset + offset, bytes, a,
                        [&](std::size_t at, std::size_t, ShadowVerdict v, std::uint32_t other) {
                          if (v != ShadowVerdict::kOk) {
                            report_shadow(lane, region, offset, bytes, at, v, other, a.write);
                          }
                        });
}

void ThreadgroupRun::report_shadow(LaneContext& lane, const Region& region, std::uint32_t offset,
                                   std::uint32_t bytes, std::size_t at, ShadowVerdict verdict,
                                   std::uint32_t other, bool write) {
  const DiagnosticKind dk = verdict == ShadowVerdict::kUninitialized
                                ? DiagnosticKind::kUninitializedRead
                                : DiagnosticKind::kThreadgroupRace;
  for (const auto& [k, r] : reported_) {
    if (k == dk && r == &region) return;
  }
  reported_.emplace_back(dk, &region);
  const std::size_t byte = offset + at;
  Diagnostic d = make_diagnostic(dk, &lane);
  d.buffer = kThreadgroupBufferId;
  d.region = region.name;
  d.offset = static_cast<std::int64_t>(byte);
  d.bytes = bytes;
  if (verdict == ShadowVerdict::kUninitialized) {
    d.message = fmt::format(
        "kernel '{}': thread {} of threadgroup {} reads byte {} of {} before any thread "
        "wrote it",
        plan_.kernel->name, xyz(d.thread), xyz(position_), byte, region_text(region));
  } else {
    d.other_thread = lanes_[other].thread_in_threadgroup;
    const bool other_wrote = verdict == ShadowVerdict::kRaceWithWriter;
    d.message = fmt::format(
        "kernel '{}': threadgroup memory race on byte {} of {} in threadgroup {}: thread {} "
        "{} it and thread {} {} it with no barrier between",
        plan_.kernel->name, byte, region_text(region), xyz(position_), xyz(d.other_thread),
        other_wrote ? "wrote" : "read", xyz(d.thread), write ? "writes" : "reads");
  }
  report(std::move(d));
}

}  // namespace marlin::sim
