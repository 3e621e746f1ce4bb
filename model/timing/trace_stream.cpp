#include "model/timing/trace_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <variant>

#include "model/common/invariant.h"
#include "model/timing/trace_check.h"
#include "sim/runtime/trace_budget.h"

namespace marlin::timing {

namespace {

std::optional<PackedTrace> packed_if_checked(const sim::SimdgroupTrace& sg) {
  const auto checked = check_simdgroup_trace(sg);
  if (const auto* reach = std::get_if<std::size_t>(&checked)) return pack_trace(sg, *reach);
  return std::nullopt;
}

}  // namespace

StreamedTrace StreamedTrace::of(sim::SimdgroupTrace& sg) {
  StreamedTrace out;
  if (std::optional<PackedTrace> packed = packed_if_checked(sg)) {
    out.packed_threadgroup = packed->threadgroup;
    out.packed = std::make_shared<const PackedTrace>(std::move(*packed));
  } else {
    out.plain = std::move(sg);
  }
  return out;
}

StreamedTrace StreamedTrace::translated(std::shared_ptr<const PackedTrace> base,
                                        std::span<const sim::BufferShift> shifts,
                                        std::array<std::uint32_t, 3> position) {
  StreamedTrace out;
  out.packed = std::move(base);
  out.shifts.assign(shifts.begin(), shifts.end());
  out.shared = true;
  out.packed_threadgroup = position;
  return out;
}

std::uint64_t StreamedTrace::footprint() const {
  if (shared) return sizeof(StreamedTrace) + shifts.capacity() * sizeof(sim::BufferShift);
  return packed ? packed->footprint() : sim::trace_bytes(plain);
}

TraceStream::TraceStream(std::uint32_t window, LimitFor limit_for)
    : window_(window), limit_for_(std::move(limit_for)) {
  MARLIN_CHECK(window >= 1, "a trace stream holds at least one threadgroup");
}

void TraceStream::begin_launch(const sim::LaunchHeader& header) {
  HeldLimit limit = limit_for_ ? limit_for_(header) : HeldLimit{};
  {
    std::lock_guard lock(mutex_);
    if (aborted_) throw TraceStreamAborted();
    MARLIN_CHECK(!header_, "a trace stream carries one launch");
    if (limit.window > 0) window_ = limit.window;
    limit_ = std::move(limit);
    header_ = header;
  }
  changed_.notify_all();
}

std::vector<sim::SimdgroupTrace> TraceStream::put(std::uint32_t threadgroup,
                                                  std::vector<sim::SimdgroupTrace> traces) {
  std::vector<StreamedTrace> held;
  held.reserve(traces.size());
  for (sim::SimdgroupTrace& sg : traces) held.push_back(StreamedTrace::of(sg));
  hold(threadgroup, std::move(held));
  return traces;
}

bool TraceStream::put_translated(std::uint32_t threadgroup,
                                 const std::vector<sim::SimdgroupTrace>& base,
                                 std::span<const sim::BufferShift> shifts,
                                 std::array<std::uint32_t, 3> position) {
  const std::vector<std::shared_ptr<const PackedTrace>>* packed = packed_base(base);
  if (packed == nullptr) return false;
  std::vector<StreamedTrace> held;
  held.reserve(packed->size());
  std::uint64_t shared_bytes = 0;
  for (const std::shared_ptr<const PackedTrace>& sg : *packed) {
    held.push_back(StreamedTrace::translated(sg, shifts, position));
    shared_bytes += sg->footprint();
  }
  hold(threadgroup, std::move(held), shared_bytes);
  return true;
}

const std::vector<std::shared_ptr<const PackedTrace>>* TraceStream::packed_base(
    const std::vector<sim::SimdgroupTrace>& base) {
  std::lock_guard lock(base_mutex_);
  if (base_ != &base) {
    base_ = &base;
    base_packed_.clear();
    base_packs_ = true;
    for (const sim::SimdgroupTrace& sg : base) {
      std::optional<PackedTrace> packed = packed_if_checked(sg);
      if (!packed) {
        base_packs_ = false;
        base_packed_.clear();
        break;
      }
      base_packed_.push_back(std::make_shared<const PackedTrace>(std::move(*packed)));
    }
  }
  return base_packs_ ? &base_packed_ : nullptr;
}

void TraceStream::hold(std::uint32_t threadgroup, std::vector<StreamedTrace> held,
                       std::uint64_t shared_bytes) {
  std::uint64_t bytes = 0;
  for (const StreamedTrace& sg : held) bytes += sg.footprint();
  // limit_ and header_ are fixed once puts begin.
  if (limit_.bytes > 0 && shared_bytes + bytes * limit_.threadgroups > limit_.bytes) {
    const std::string shared = shared_bytes == 0
                                   ? std::string()
                                   : fmt::format(" and reads {:.1f} MB shared by its translations",
                                                 static_cast<double>(shared_bytes) / 1e6);
    throw sim::TraceLimitExceeded(fmt::format(
        "kernel '{}': threadgroup {} has {:.1f} MB of traces{}; the replay of a streamed run "
        "holds up to {} threadgroups at once ({}), which would need {:.1f} MB, over the trace "
        "limit of {:.1f} MB",
        header_->kernel, threadgroup, static_cast<double>(bytes) / 1e6, shared, limit_.threadgroups,
        limit_.held, static_cast<double>(shared_bytes + bytes * limit_.threadgroups) / 1e6,
        static_cast<double>(limit_.bytes) / 1e6));
  }
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return aborted_ || threadgroup < next_take_ + window_; });
    if (aborted_) throw TraceStreamAborted();
    MARLIN_CHECK(threadgroup >= next_take_ && !held_.contains(threadgroup),
                 "each threadgroup is put once, before the replay takes it");
    held_.emplace(threadgroup, std::move(held));
    peak_held_ = std::max(peak_held_, held_.size());
  }
  changed_.notify_all();
}

void TraceStream::abort() noexcept {
  {
    std::lock_guard lock(mutex_);
    aborted_ = true;
  }
  changed_.notify_all();
}

const sim::LaunchHeader& TraceStream::header() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return aborted_ || header_.has_value(); });
  if (aborted_) throw TraceStreamAborted();
  return *header_;
}

std::vector<StreamedTrace> TraceStream::take(std::uint32_t threadgroup) {
  std::vector<StreamedTrace> out;
  {
    std::unique_lock lock(mutex_);
    MARLIN_CHECK(threadgroup == next_take_, "the replay takes threadgroups in order");
    changed_.wait(lock, [&] { return aborted_ || held_.contains(threadgroup); });
    if (aborted_) throw TraceStreamAborted();
    auto it = held_.find(threadgroup);
    out = std::move(it->second);
    held_.erase(it);
    ++next_take_;
  }
  changed_.notify_all();
  return out;
}

std::size_t TraceStream::peak_held() const {
  std::lock_guard lock(mutex_);
  return peak_held_;
}

}  // namespace marlin::timing
