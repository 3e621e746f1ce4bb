// Threadgroup traces by translation (docs/engine.md, "Threadgroups by translation"). In a tiled
// kernel, the threadgroups away from a ragged edge of the grid run the same code on their own
// tiles: their traces are those of one of them with each buffer's addresses moved by an amount
// affine in the threadgroup's position. These functions find those amounts by comparing the
// traces of neighbouring threadgroups, and build a threadgroup's traces from another's. Private
// to sim/runtime.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/runtime/launch.h"
#include "sim/runtime/trace.h"

namespace marlin::sim {

// The offset change of each buffer's accesses from one threadgroup's traces to another's
// (modulo 2^32, as MemAccess offsets are). Buffers absent from the traces move by 0.
class BufferShifts {
 public:
  std::uint32_t of(std::uint16_t buffer) const;
  // Records buffer's shift; false if it already has a different one.
  bool set(std::uint16_t buffer, std::uint32_t shift);
  // This shift times n plus other's times m, per buffer.
  static BufferShifts combine(const BufferShifts& a, std::uint32_t n, const BufferShifts& b,
                              std::uint32_t m);

 private:
  struct Entry {
    std::uint16_t buffer = 0;
    std::uint32_t shift = 0;
  };
  std::vector<Entry> entries_;
};

// The shifts that take traces `from` to traces `to` (one threadgroup's simdgroups each), or
// nullopt when they differ in anything but access offsets, or a buffer's offsets move by
// different amounts.
std::optional<BufferShifts> trace_shift(const std::vector<SimdgroupTrace>& from,
                                        const std::vector<SimdgroupTrace>& to);

// `base`'s traces with every access moved by its buffer's shift, for threadgroup `position`.
std::vector<SimdgroupTrace> translate_traces(const std::vector<SimdgroupTrace>& base,
                                             const BufferShifts& shifts,
                                             std::array<std::uint32_t, 3> position);

// How the threadgroups a launch selected get their traces, as positions in `selected` (the
// linear indices of the threadgroups it runs, ascending).
struct TranslationPlan {
  std::vector<std::size_t> run;     // by the engine, first
  std::vector<std::size_t> copied;  // by translation of `base`'s traces, if the checks pass
  std::size_t base = 0;
  std::optional<std::size_t> along_x;  // base's neighbour at x + 1, and at y + 1
  std::optional<std::size_t> along_y;
  std::vector<std::size_t> checks;  // run, and compared with their translation
};

// Everything runs unless `alike` covers some of the selected threadgroups: then the first
// alike one is the base, its neighbours along x and y (when selected) give the shifts, and the
// alike ones they reach are copied but for up to two checks: base + (1, 1) and the last.
TranslationPlan plan_translation(const std::vector<std::uint32_t>& selected, Dim3 grid,
                                 AlikeThreadgroups alike);

// After the plan's `run` threadgroups ran into `traces` (indexed like `selected`): builds the
// copied threadgroups' traces and returns true, or returns false, building nothing, when the
// neighbours' traces differ in more than offsets or a check's traces are not its translation.
// The copies are built on `threads` threads.
bool translate_copies(const TranslationPlan& plan, const std::vector<std::uint32_t>& selected,
                      Dim3 grid, std::vector<std::vector<SimdgroupTrace>*> traces,
                      unsigned threads);

}  // namespace marlin::sim
