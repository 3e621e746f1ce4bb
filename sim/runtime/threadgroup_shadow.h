// Shadow state of threadgroup memory for the race and uninitialized-read sanitizer.
//
// One cell per granule of threadgroup memory records the last writer and last reader (thread
// index in the threadgroup) with the barrier epoch and their simdgroup's sync epoch at the
// time. A granule is `granule()` bytes (a power of two, 4 at first): while every access
// covers whole granules, the bytes of a granule share one state, so one cell stands for them
// all. An access that does not (a byte, a half at an odd half) first splits the cells into
// smaller granules, copying each cell to its parts: exact, since the parts shared the state.
// The split lasts as long as the shadow (one per host worker, reused across launches). Two
// accesses by different threads to the same byte, at least one a write, race unless a
// threadgroup barrier separates them (different barrier epoch) or both threads are in the
// same simdgroup and a simdgroup barrier or collective separates them. Epochs come from a
// per-worker counter that only grows, so cells never need clearing between threadgroups: a
// write epoch older than the threadgroup's start means "never written".
#pragma once

#include <cstdint>
#include <vector>

namespace marlin::sim {

struct ShadowCell {
  std::uint32_t write_epoch = 0;
  std::uint32_t read_epoch = 0;
  std::uint32_t write_simd_epoch = 0;
  std::uint32_t read_simd_epoch = 0;
  std::uint16_t writer = 0;
  std::uint16_t reader = 0;
};

enum class ShadowVerdict : std::uint8_t { kOk, kUninitialized, kRaceWithWriter, kRaceWithReader };

struct ShadowAccess {
  std::uint32_t thread = 0;
  std::uint32_t simdgroup = 0;
  std::uint32_t simd_epoch = 0;  // current sync epoch of the accessing thread's simdgroup
  bool write = false;
  bool atomic = false;  // atomics never race with each other; they count as a write
};

class ThreadgroupShadow {
 public:
  // Starts a threadgroup using `bytes` of threadgroup memory.
  void begin_threadgroup(std::size_t bytes);
  // A threadgroup barrier was released.
  void barrier() { epoch_ = ++counter_; }
  std::uint32_t next_simd_epoch() { return ++counter_; }

  // Bytes per cell, and the cell holding byte `offset`.
  std::uint32_t granule() const { return std::uint32_t{1} << shift_; }
  std::size_t cell_of(std::size_t offset) const { return offset >> shift_; }
  // Makes bytes [offset, offset + n) whole granules, splitting every cell if they are not.
  void cover(std::size_t offset, std::size_t n) {
    if (((offset | n) & (granule() - 1)) != 0) split(offset | n);
  }

  // Checks and records an access to bytes [offset, offset + n): covers them with whole
  // granules, then calls on_verdict(first byte from `offset`, bytes, verdict, other thread)
  // once per run of bytes that share a verdict: the whole access when its cells are
  // identical (a whole element written by one thread, the usual case), else each cell.
  template <class OnVerdict>
  void access(std::size_t offset, std::size_t n, const ShadowAccess& a, OnVerdict&& on_verdict) {
    cover(offset, n);
    const std::size_t cell = cell_of(offset);
    const std::size_t cells = cell_of(n);
    if (cells > 1 && uniform_cells(cell, cells)) {
      std::uint32_t other = 0;
      const ShadowVerdict v = access_uniform(cell, cells, a, &other);
      on_verdict(std::size_t{0}, n, v, other);
      return;
    }
    for (std::size_t i = 0; i < cells; ++i) {
      std::uint32_t other = 0;
      const ShadowVerdict v = check(cells_[cell + i], a, &other);
      on_verdict(i * granule(), std::size_t{granule()}, v, other);
    }
  }

 private:
  // True if cells [cell, cell + n) are identical: then every granule has the verdict and the
  // new state of the first, and access_uniform() checks and records them at once.
  bool uniform_cells(std::size_t cell, std::size_t n) const {
    const ShadowCell& c = cells_[cell];
    for (std::size_t i = 1; i < n; ++i) {
      const ShadowCell& o = cells_[cell + i];
      if (o.write_epoch != c.write_epoch || o.read_epoch != c.read_epoch ||
          o.write_simd_epoch != c.write_simd_epoch || o.read_simd_epoch != c.read_simd_epoch ||
          o.writer != c.writer || o.reader != c.reader) {
        return false;
      }
    }
    return true;
  }
  ShadowVerdict access_uniform(std::size_t cell, std::size_t n, const ShadowAccess& a,
                               std::uint32_t* other) {
    ShadowCell c = cells_[cell];  // updated in registers, then stored to every cell
    const ShadowVerdict v = check(c, a, other);
    for (std::size_t i = 0; i < n; ++i) cells_[cell + i] = c;
    return v;
  }
  // The verdict for one cell, which is updated with the access.
  ShadowVerdict check(ShadowCell& c, const ShadowAccess& a, std::uint32_t* other) const;

  // Splits every cell into granules of the largest power of two dividing `alignment` and the
  // current granule.
  void split(std::size_t alignment);

  std::vector<ShadowCell> cells_;
  std::uint32_t shift_ = 2;  // log2 of the granule
  std::uint32_t counter_ = 0;
  std::uint32_t start_ = 0;  // epochs <= start_ belong to earlier threadgroups
  std::uint32_t epoch_ = 0;
};

inline ShadowVerdict ThreadgroupShadow::check(ShadowCell& c, const ShadowAccess& a,
                                              std::uint32_t* other) const {
  constexpr std::uint32_t kWidth = 32;
  // Ordered within a simdgroup when its sync epoch moved on since the earlier access.
  const auto simd_ordered = [&](std::uint32_t thread, std::uint32_t simd_epoch) {
    return thread / kWidth == a.simdgroup && simd_epoch != a.simd_epoch;
  };
  ShadowVerdict verdict = ShadowVerdict::kOk;
  if (a.atomic) {
    // Atomic operations are ordered among themselves; they initialize the bytes.
  } else if (!a.write && c.write_epoch <= start_) {
    verdict = ShadowVerdict::kUninitialized;
  } else if (c.write_epoch == epoch_ && c.writer != a.thread &&
             !simd_ordered(c.writer, c.write_simd_epoch)) {
    verdict = ShadowVerdict::kRaceWithWriter;
    *other = c.writer;
  } else if (a.write && c.read_epoch == epoch_ && c.reader != a.thread &&
             !simd_ordered(c.reader, c.read_simd_epoch)) {
    verdict = ShadowVerdict::kRaceWithReader;
    *other = c.reader;
  }
  if (a.write) {
    c.write_epoch = epoch_;
    c.writer = static_cast<std::uint16_t>(a.thread);
    c.write_simd_epoch = a.simd_epoch;
  } else {
    c.read_epoch = epoch_;
    c.reader = static_cast<std::uint16_t>(a.thread);
    c.read_simd_epoch = a.simd_epoch;
  }
  return verdict;
}

}  // namespace marlin::sim
