// TraceStream: hands a launch's traces from the execution engine to the timing model's replay
// threadgroup by threadgroup, so the replay runs while the engine still executes the launch and
// neither side holds the whole launch's traces.
//
// Contract: the engine side is sim::ThreadgroupTraceSink (trace_sink.h); the replay side calls
// header() once and take() for threadgroups 0, 1, 2, ... in that order (the dispatcher's
// order). put() blocks while its threadgroup is `window` or more past the next one the replay
// will take, so the stream holds at most `window` threadgroups the replay has not taken; take()
// blocks until its threadgroup is put. After abort(), from either side, header(), take() and
// put() throw TraceStreamAborted. Thread-safe.
//
// Host memory: the replay holds the traces of its resident threadgroups and the stream at most
// `window` more. put() packs each simdgroup's trace (packed_trace.h) on the engine's thread when
// the packed form can hold it, and gives the plain trace's vectors back to the engine for its
// next threadgroup; it keeps the trace as it is otherwise (StreamedTrace). A HeldLimit,
// computed from the launch's header in begin_launch(), bounds that: put() throws
// sim::TraceLimitExceeded (an InputError) when a threadgroup's traces as held, times the
// threadgroups held at once, would exceed the limit. Each threadgroup is judged on its own size,
// so whether a launch is refused does not depend on host threads. A translated threadgroup
// (put_translated) holds little of its own: it reads its base's packed traces, held once and
// counted once.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/timing/packed_trace.h"
#include "sim/runtime/trace_sink.h"

namespace marlin::timing {

class TraceStreamAborted : public std::runtime_error {
 public:
  TraceStreamAborted() : std::runtime_error("the trace stream was aborted") {}
};

// One simdgroup's trace as a stream holds it: packed when pack_trace() takes it, else as the
// engine made it. A translated threadgroup's traces share its base's packed traces and its
// buffers' shifts: the replay unpacks the base once and reads it in place, moving each access
// by its buffer's shift (launch_replay.h, SimdgroupSlot::shifts).
struct StreamedTrace {
  std::shared_ptr<const PackedTrace> packed;
  std::vector<sim::BufferShift> shifts;  // to read the unpacked `packed` with
  bool shared = false;                   // `packed` is a base's, taken into account there
  std::array<std::uint32_t, 3> packed_threadgroup{};  // the threadgroup it is, when packed
  sim::SimdgroupTrace plain;                          // empty when packed

  // Packs `sg` when it passes check_simdgroup_trace() and pack_trace() takes it (`sg` is then
  // left as it was); takes `sg` as it is otherwise.
  static StreamedTrace of(sim::SimdgroupTrace& sg);
  // The trace of threadgroup `position`: the base's packed trace `base` with `shifts`.
  static StreamedTrace translated(std::shared_ptr<const PackedTrace> base,
                                  std::span<const sim::BufferShift> shifts,
                                  std::array<std::uint32_t, 3> position);
  [[nodiscard]] const std::array<std::uint32_t, 3>& threadgroup() const {
    return packed ? packed_threadgroup : plain.threadgroup;
  }
  [[nodiscard]] std::uint32_t simdgroup() const {
    return packed ? packed->simdgroup : plain.simdgroup;
  }
  [[nodiscard]] std::size_t op_count() const {
    return packed ? packed->op_count : plain.ops.size();
  }
  // Host memory it takes (a shared packed trace counts with its base's threadgroup).
  [[nodiscard]] std::uint64_t footprint() const;
};

// The most threadgroups held at once and the bytes their traces may take (0: no limit);
// `held` says how the count comes about, for the error message. A non-zero `window` replaces
// the stream's window for the launch (known only from its header, like its residency).
struct HeldLimit {
  std::uint64_t threadgroups = 0;
  std::uint64_t bytes = 0;
  std::string held;
  std::uint32_t window = 0;
};

class TraceStream final : public sim::ThreadgroupTraceSink {
 public:
  using LimitFor = std::function<HeldLimit(const sim::LaunchHeader&)>;

  // `window` >= 1 (InvariantError otherwise). `limit_for`, when given, is called once in
  // begin_launch() (an exception from it stops the launch).
  explicit TraceStream(std::uint32_t window, LimitFor limit_for = {});

  // Engine side.
  void begin_launch(const sim::LaunchHeader& header) override;
  // Returns the traces it packed, for their vectors (trace_sink.h).
  std::vector<sim::SimdgroupTrace> put(std::uint32_t threadgroup,
                                       std::vector<sim::SimdgroupTrace> traces) override;
  // Packs `base` once (at its first translation) and holds the threadgroup's traces as
  // readings of it; false, taking nothing, when a trace of `base` does not pack.
  bool put_translated(std::uint32_t threadgroup, const std::vector<sim::SimdgroupTrace>& base,
                      std::span<const sim::BufferShift> shifts,
                      std::array<std::uint32_t, 3> position) override;
  void abort() noexcept override;

  // Replay side.
  const sim::LaunchHeader& header();
  std::vector<StreamedTrace> take(std::uint32_t threadgroup);

  // Most threadgroups held at once so far (put and not taken).
  [[nodiscard]] std::size_t peak_held() const;

 private:
  // Checks `held` against the limit (with `shared_bytes` of a base's packed traces that it
  // reads, held once), waits for its threadgroup's turn and keeps it.
  void hold(std::uint32_t threadgroup, std::vector<StreamedTrace> held,
            std::uint64_t shared_bytes = 0);
  // `base`'s traces packed, each shared by the threadgroups translated from it; null when one
  // does not pack.
  const std::vector<std::shared_ptr<const PackedTrace>>* packed_base(
      const std::vector<sim::SimdgroupTrace>& base);

  std::uint32_t window_;  // fixed once begin_launch() returns
  const LimitFor limit_for_;
  HeldLimit limit_;  // set before the header, read by put() after it
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<sim::LaunchHeader> header_;
  std::map<std::uint32_t, std::vector<StreamedTrace>> held_;
  std::uint32_t next_take_ = 0;
  std::size_t peak_held_ = 0;
  bool aborted_ = false;
  std::mutex base_mutex_;  // guards the three below
  const std::vector<sim::SimdgroupTrace>* base_ = nullptr;
  std::vector<std::shared_ptr<const PackedTrace>> base_packed_;
  bool base_packs_ = false;
};

}  // namespace marlin::timing
