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
  // a's shifts times n plus b's times m, per buffer.
  static BufferShifts combine(const BufferShifts& a, std::uint32_t n, const BufferShifts& b,
                              std::uint32_t m);
  // Each buffer with a shift, once.
  [[nodiscard]] const std::vector<BufferShift>& entries() const { return entries_; }

 private:
  std::vector<BufferShift> entries_;
};

// The shifts that take traces `from` to traces `to` (one threadgroup's simdgroups each), or
// nullopt when they differ in anything but access offsets, or a buffer's offsets move by
// different amounts.
std::optional<BufferShifts> trace_shift(const std::vector<SimdgroupTrace>& from,
                                        const std::vector<SimdgroupTrace>& to);

// `base`'s traces with every access moved by its buffer's shift, for threadgroup `position`;
// the _into form reuses `out`'s vectors.
std::vector<SimdgroupTrace> translate_traces(const std::vector<SimdgroupTrace>& base,
                                             const BufferShifts& shifts,
                                             std::array<std::uint32_t, 3> position);
void translate_traces_into(const std::vector<SimdgroupTrace>& base, const BufferShifts& shifts,
                           std::array<std::uint32_t, 3> position, std::vector<SimdgroupTrace>& out);

// How the threadgroups a launch selected get their traces, as positions in `selected` (the
// linear indices of the threadgroups it runs, ascending). The probes run first, traced; every
// other threadgroup is either copied (its traces by translation of the base's, when the checks
// pass) or runs traced as usual.
struct TranslationPlan {
  std::vector<std::size_t> probes;  // ascending: the base, its neighbours and the checks
  std::vector<std::size_t> checks;  // compared with their translation
  std::vector<bool> copied;         // per position
  std::size_t base = 0;
  std::optional<std::size_t> along_x;  // base's neighbour at x + 1, and at y + 1
  std::optional<std::size_t> along_y;
  bool copies() const { return !checks.empty(); }
};

// Nothing is copied unless `alike` covers some of the selected threadgroups: then the first
// alike one is the base, its neighbours along x and y (when selected) give the shifts, and the
// alike ones they reach are copied but for up to two checks: base + (1, 1) and the last.
TranslationPlan plan_translation(const std::vector<std::uint32_t>& selected, Dim3 grid,
                                 AlikeThreadgroups alike);

// Builds copied threadgroups' traces from the probes' (`probe_traces(position)` gives a probe's
// traces once they ran). It keeps its own copy of the base's traces, which a trace sink may
// take before the copies are built.
class Translator {
 public:
  // The translator of `plan`, or nullopt when the neighbours' traces differ in more than
  // offsets or a check's traces are not its translation.
  template <class ProbeTraces>
  static std::optional<Translator> make(const TranslationPlan& plan,
                                        const std::vector<std::uint32_t>& selected, Dim3 grid,
                                        ProbeTraces&& probe_traces);

  // The traces of the threadgroup at `position` in `selected`; the _into form reuses `out`'s
  // vectors.
  std::vector<SimdgroupTrace> traces_of(std::size_t position) const;
  void traces_into(std::size_t position, std::vector<SimdgroupTrace>& out) const;
  // What those traces are made of: the base's traces, the shifts from them to the traces of
  // the threadgroup at `position`, and that threadgroup's position in the grid.
  [[nodiscard]] const std::vector<SimdgroupTrace>& base() const { return base_; }
  [[nodiscard]] BufferShifts shifts_of(std::size_t position) const;
  [[nodiscard]] std::array<std::uint32_t, 3> position_of(std::size_t position) const;

 private:
  Translator(const std::vector<SimdgroupTrace>& base, std::array<std::uint32_t, 3> base_position,
             const std::vector<std::uint32_t>& selected, Dim3 grid)
      : base_(base), base_position_(base_position), selected_(&selected), grid_(grid) {}
  std::vector<SimdgroupTrace> base_;
  std::array<std::uint32_t, 3> base_position_;
  const std::vector<std::uint32_t>* selected_;
  Dim3 grid_;
  BufferShifts dx_;
  BufferShifts dy_;
};

template <class ProbeTraces>
std::optional<Translator> Translator::make(const TranslationPlan& plan,
                                           const std::vector<std::uint32_t>& selected, Dim3 grid,
                                           ProbeTraces&& probe_traces) {
  const std::vector<SimdgroupTrace>& base = probe_traces(plan.base);
  Translator t(base, threadgroup_position(selected[plan.base], grid), selected, grid);
  if (plan.along_x) {
    std::optional<BufferShifts> s = trace_shift(base, probe_traces(*plan.along_x));
    if (!s) return std::nullopt;
    t.dx_ = std::move(*s);
  }
  if (plan.along_y) {
    std::optional<BufferShifts> s = trace_shift(base, probe_traces(*plan.along_y));
    if (!s) return std::nullopt;
    t.dy_ = std::move(*s);
  }
  for (const std::size_t c : plan.checks) {
    if (t.traces_of(c) != probe_traces(c)) return std::nullopt;
  }
  return t;
}

}  // namespace marlin::sim
