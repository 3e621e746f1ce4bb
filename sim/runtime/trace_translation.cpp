#include "sim/runtime/trace_translation.h"

#include <algorithm>

namespace marlin::sim {

std::uint32_t BufferShifts::of(std::uint16_t buffer) const { return shift_of(entries_, buffer); }

bool BufferShifts::set(std::uint16_t buffer, std::uint32_t shift) {
  for (const BufferShift& e : entries_) {
    if (e.buffer == buffer) return e.shift == shift;
  }
  entries_.push_back({buffer, shift});
  return true;
}

BufferShifts BufferShifts::combine(const BufferShifts& a, std::uint32_t n, const BufferShifts& b,
                                   std::uint32_t m) {
  BufferShifts out;
  for (const BufferShift& e : a.entries_)
    out.entries_.push_back({e.buffer, e.shift * n + b.of(e.buffer) * m});
  for (const BufferShift& e : b.entries_) {
    const bool seen = std::any_of(out.entries_.begin(), out.entries_.end(),
                                  [&](const BufferShift& o) { return o.buffer == e.buffer; });
    if (!seen) out.entries_.push_back({e.buffer, e.shift * m});
  }
  return out;
}

namespace {

// Calls visit(stored record) for each record of `trace` that holds an access's offset (not
// the stride record of an affine run).
template <class Visit>
void for_each_offset_record(const SimdgroupTrace& trace, Visit&& visit) {
  for (const TraceOp& op : trace.ops) {
    if (!has_accesses(op.op) || op.count == 0) continue;
    const MemAccess* stored = trace.accesses.data() + op.first_access;
    const std::uint32_t records = stored_accesses(stored, op.count);
    const std::uint32_t with_offset = is_affine_run(stored, op.count) ? 1 : records;
    for (std::uint32_t r = 0; r < with_offset; ++r) visit(op.first_access + r);
  }
}

bool same_shape(const SimdgroupTrace& a, const SimdgroupTrace& b) {
  if (a.simdgroup != b.simdgroup || a.ops != b.ops || a.accesses.size() != b.accesses.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.accesses.size(); ++i) {
    const MemAccess& x = a.accesses[i];
    const MemAccess& y = b.accesses[i];
    if (x.buffer != y.buffer || x.bytes != y.bytes || x.lane != y.lane) return false;
  }
  return true;
}

}  // namespace

std::optional<BufferShifts> trace_shift(const std::vector<SimdgroupTrace>& from,
                                        const std::vector<SimdgroupTrace>& to) {
  if (from.size() != to.size()) return std::nullopt;
  BufferShifts shifts;
  for (std::size_t s = 0; s < from.size(); ++s) {
    const SimdgroupTrace& a = from[s];
    const SimdgroupTrace& b = to[s];
    if (!same_shape(a, b)) return std::nullopt;
    std::vector<bool> has_offset(a.accesses.size(), false);
    bool consistent = true;
    for_each_offset_record(a, [&](std::uint32_t r) {
      has_offset[r] = true;
      consistent = consistent &&
                   shifts.set(a.accesses[r].buffer, b.accesses[r].offset - a.accesses[r].offset);
    });
    if (!consistent) return std::nullopt;
    // The stride records of affine runs (and any record no op names) must not move.
    for (std::size_t r = 0; r < a.accesses.size(); ++r) {
      if (!has_offset[r] && a.accesses[r].offset != b.accesses[r].offset) return std::nullopt;
    }
  }
  return shifts;
}

std::vector<SimdgroupTrace> translate_traces(const std::vector<SimdgroupTrace>& base,
                                             const BufferShifts& shifts,
                                             std::array<std::uint32_t, 3> position) {
  std::vector<SimdgroupTrace> out;
  translate_traces_into(base, shifts, position, out);
  return out;
}

void translate_traces_into(const std::vector<SimdgroupTrace>& base, const BufferShifts& shifts,
                           std::array<std::uint32_t, 3> position,
                           std::vector<SimdgroupTrace>& out) {
  // The shifts of buffers [[buffer(0)]] to [[buffer(kDirect - 1)]] by index, the rest by search.
  constexpr std::uint16_t kDirect = 64;
  std::array<std::uint32_t, kDirect> direct{};
  for (std::uint16_t b = 0; b < kDirect; ++b) direct[b] = shifts.of(b);
  out.resize(base.size());
  for (std::size_t s = 0; s < base.size(); ++s) {
    SimdgroupTrace& trace = out[s];
    trace.simdgroup = base[s].simdgroup;
    trace.ops.assign(base[s].ops.begin(), base[s].ops.end());
    trace.accesses.assign(base[s].accesses.begin(), base[s].accesses.end());
    trace.threadgroup = position;
    for_each_offset_record(trace, [&](std::uint32_t r) {
      MemAccess& a = trace.accesses[r];
      a.offset += a.buffer < kDirect ? direct[a.buffer] : shifts.of(a.buffer);
    });
  }
}

TranslationPlan plan_translation(const std::vector<std::uint32_t>& selected, Dim3 grid,
                                 AlikeThreadgroups alike) {
  TranslationPlan plan;
  plan.copied.assign(selected.size(), false);
  const auto is_alike = [&](std::uint32_t linear) {
    const auto p = threadgroup_position(linear, grid);
    return p[0] < alike.x && p[1] < alike.y && p[2] == 0;
  };
  const auto first_alike = std::find_if(selected.begin(), selected.end(), is_alike);
  if (alike.x == 0 || grid.z != 1 || first_alike == selected.end()) return plan;
  plan.base = static_cast<std::size_t>(first_alike - selected.begin());
  const auto b = threadgroup_position(selected[plan.base], grid);
  // The position in `selected` of the alike threadgroup at (x, y), if selected.
  const auto find = [&](std::uint32_t x, std::uint32_t y) -> std::optional<std::size_t> {
    if (x >= alike.x || y >= alike.y) return std::nullopt;
    const std::uint32_t linear = y * grid.x + x;
    const auto it = std::lower_bound(selected.begin(), selected.end(), linear);
    if (it == selected.end() || *it != linear) return std::nullopt;
    return static_cast<std::size_t>(it - selected.begin());
  };
  plan.along_x = find(b[0] + 1, b[1]);
  plan.along_y = find(b[0], b[1] + 1);
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const auto p = threadgroup_position(selected[i], grid);
    const bool reachable = is_alike(selected[i]) && p[0] >= b[0] && p[1] >= b[1] &&
                           (p[0] == b[0] || plan.along_x) && (p[1] == b[1] || plan.along_y);
    const bool probe = i == plan.base || i == plan.along_x || i == plan.along_y;
    if (reachable && !probe) candidates.push_back(i);
  }
  const std::optional<std::size_t> diagonal = find(b[0] + 1, b[1] + 1);
  for (const std::size_t c : candidates) {
    if (c == diagonal || c == candidates.back()) {
      plan.checks.push_back(c);
    } else {
      plan.copied[c] = true;
    }
  }
  if (std::find(plan.copied.begin(), plan.copied.end(), true) == plan.copied.end()) {
    TranslationPlan none;
    none.copied.assign(selected.size(), false);
    return none;
  }
  plan.probes = plan.checks;
  plan.probes.push_back(plan.base);
  if (plan.along_x) plan.probes.push_back(*plan.along_x);
  if (plan.along_y) plan.probes.push_back(*plan.along_y);
  std::sort(plan.probes.begin(), plan.probes.end());
  return plan;
}

std::array<std::uint32_t, 3> Translator::position_of(std::size_t position) const {
  return threadgroup_position((*selected_)[position], grid_);
}

BufferShifts Translator::shifts_of(std::size_t position) const {
  const auto p = position_of(position);
  return BufferShifts::combine(dx_, p[0] - base_position_[0], dy_, p[1] - base_position_[1]);
}

void Translator::traces_into(std::size_t position, std::vector<SimdgroupTrace>& out) const {
  translate_traces_into(base_, shifts_of(position), position_of(position), out);
}

std::vector<SimdgroupTrace> Translator::traces_of(std::size_t position) const {
  std::vector<SimdgroupTrace> out;
  traces_into(position, out);
  return out;
}

}  // namespace marlin::sim
