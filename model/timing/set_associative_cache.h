// Set-associative cache with least-recently-used replacement.
//
// Geometry: lines = size_bytes / line_bytes; ways = associativity (0 = all lines in one set);
// sets = lines / ways; line number n = address / line_bytes goes to set n mod sets. On a miss
// the victim is the lowest-numbered invalid way, else the least recently used way. A hit or
// an allocation makes the line the most recently used. Frame of set s, way w = s * ways + w.
//
// Cost per access is O(1) whatever the associativity: a hash index (open addressing, linear
// probing) finds a line's frame, and each set keeps its frames in an intrusive recency list
// whose tail is the victim. Nothing is allocated after construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
  static constexpr std::int64_t kNone = -1;

  struct Line {
    std::uint64_t line_number = 0;
    bool valid = false;
    bool dirty = false;
  };

  // Hash index: line number -> frame of a valid line.
  [[nodiscard]] std::size_t home_slot(std::uint64_t line_number) const;
  [[nodiscard]] std::int64_t find(std::uint64_t line_number) const;
  void index_insert(std::int64_t frame);
  void index_erase(std::uint64_t line_number);

  // Recency list of one set: head = most recently used, tail = victim.
  void unlink(std::int64_t set, std::int64_t frame);
  void push_front(std::int64_t set, std::int64_t frame);

  WritePolicy policy_;
  std::int64_t ways_ = 0;
  std::int64_t sets_ = 0;
  FixedDivisor line_bytes_;
  FixedDivisor set_divisor_;         // sets_
  std::vector<Line> lines_;          // sets_ * ways_ frames
  std::vector<std::int64_t> prev_;   // per frame: neighbour towards the head, or kNone
  std::vector<std::int64_t> next_;   // per frame: neighbour towards the tail, or kNone
  std::vector<std::int64_t> head_;   // per set
  std::vector<std::int64_t> tail_;   // per set
  std::vector<std::int64_t> slots_;  // hash index: frame or kNone; size a power of two
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
