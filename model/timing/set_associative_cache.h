// Set-associative cache with least-recently-used replacement.
//
// Geometry: lines = size_bytes / line_bytes; ways = associativity (0 = all lines in one set);
// sets = lines / ways; line number n = address / line_bytes goes to set n mod sets. On a miss
// a set with fewer valid lines than ways takes a new frame; a full set replaces its least
// recently used line. A hit or an allocation makes the line the most recently used. Lines are
// never invalidated.
//
// Frames are numbered in the order lines first take them: 0, 1, ... up to lines - 1, and a
// replaced line's frame goes to the line that replaces it. Memory is touched in proportion to
// the frames in use, not to the capacity: building a large cache (an SLC of 48 MiB) costs a
// few pages, and a replay that uses a corner of it pays only for that corner.
//
// Cost per access is O(1) whatever the associativity: a hash index (open addressing, linear
// probing, at most half full) finds a line's frame, and each set keeps its frames in an
// intrusive recency list whose tail is the victim. The index doubles as lines arrive (its
// size is at most twice the capacity); nothing else is allocated after construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/common/zero_page_allocator.h"
#include "model/timing/cache.h"
#include "model/timing/fixed_divisor.h"

namespace marlin::timing {

class SetAssociativeCache final : public Cache {
 public:
  SetAssociativeCache(const model::CacheSpec& spec, WritePolicy policy, const std::string& name);

  CacheAccessResult access(std::uint64_t address, bool is_write) override;
  [[nodiscard]] bool contains(std::uint64_t address) const override;
  [[nodiscard]] std::int64_t frames() const override {
    return static_cast<std::int64_t>(lines_.size());
  }
  [[nodiscard]] int line_bytes() const override { return static_cast<int>(line_bytes_.divisor()); }
  [[nodiscard]] const StatRegistry& stats() const override { return stats_; }

  [[nodiscard]] std::int64_t sets() const { return sets_; }
  [[nodiscard]] std::int64_t ways() const { return ways_; }

 private:
  // Frame numbers fit in 32 bits: at most 2^28 lines.
  using Frame = std::int32_t;
  static constexpr Frame kNone = -1;
  // Storage that calloc's zero pages back: untouched until written.
  template <typename T>
  using LazyArray = std::vector<T, ZeroPageAllocator<T>>;

  // A valid line (frames below frames_used_ hold one each).
  struct Line {
    std::uint64_t line_number;
    bool dirty;
  };

  // Hash index: line number -> frame of a valid line.
  [[nodiscard]] std::size_t home_slot(std::uint64_t line_number) const;
  [[nodiscard]] Frame find(std::uint64_t line_number) const;
  void index_insert(Frame frame);
  void index_erase(std::uint64_t line_number);
  // Doubles the index and re-inserts every valid line.
  void grow_index();

  // Recency list of one set: head = most recently used, tail = victim; head_ and tail_ mean
  // something only once the set has a line (filled_ > 0).
  // Links a new frame at the head and counts it in filled_.
  void add_front(std::size_t set, Frame frame);
  // Moves a frame of the list to its head.
  void touch(std::size_t set, Frame frame);

  WritePolicy policy_;
  std::int64_t ways_ = 0;
  std::int64_t sets_ = 0;
  FixedDivisor line_bytes_;
  FixedDivisor set_divisor_;  // sets_
  LazyArray<Line> lines_;     // per frame
  LazyArray<Frame> prev_;     // per frame: neighbour towards the head, or kNone
  LazyArray<Frame> next_;     // per frame: neighbour towards the tail, or kNone
  LazyArray<Frame> head_;     // per set
  LazyArray<Frame> tail_;     // per set
  LazyArray<std::uint32_t> filled_;  // per set: valid lines
  Frame frames_used_ = 0;
  // Hash index: frame + 1, or 0 for an empty slot; size a power of two, 2^slot_bits_.
  std::vector<std::uint32_t> slots_;
  int slot_bits_ = 0;
  StatRegistry stats_;
  StatId read_hits_;
  StatId read_misses_;
  StatId write_hits_;
  StatId write_misses_;
  StatId evictions_;
  StatId writebacks_;
};

}  // namespace marlin::timing
