#include "model/timing/set_associative_cache.h"

#include <string>

#include "model/common/input_error.h"

namespace marlin::timing {
namespace {

[[noreturn]] void bad_geometry(const std::string& name, const std::string& what) {
  throw InputError(name + ": " + what);
}

// Caches larger than this many lines are certainly a profile mistake (2^28 lines = 32 GiB).
constexpr std::int64_t kMaxLines = std::int64_t{1} << 28;

}  // namespace

SetAssociativeCache::SetAssociativeCache(const model::CacheSpec& spec, WritePolicy policy,
                                         const std::string& name)
    : policy_(policy) {
  if (spec.line_bytes <= 0) {
    bad_geometry(name, "line_bytes must be positive (got " + std::to_string(spec.line_bytes) + ")");
  }
  if (spec.size_bytes <= 0 || spec.size_bytes % spec.line_bytes != 0 ||
      spec.size_bytes / spec.line_bytes > kMaxLines) {
    bad_geometry(name,
                 "size_bytes must be a positive multiple of line_bytes, at most 2^28 lines "
                 "(got " +
                     std::to_string(spec.size_bytes) + " and " + std::to_string(spec.line_bytes) +
                     ")");
  }
  const std::int64_t lines = spec.size_bytes / spec.line_bytes;
  if (spec.associativity < 0 || spec.associativity > lines ||
      (spec.associativity > 0 && lines % spec.associativity != 0)) {
    bad_geometry(name, "associativity must be 0 (fully associative) or divide the " +
                           std::to_string(lines) + " lines (got " +
                           std::to_string(spec.associativity) + ")");
  }
  ways_ = spec.associativity == 0 ? lines : spec.associativity;
  sets_ = lines / ways_;
  line_bytes_ = FixedDivisor(static_cast<std::uint64_t>(spec.line_bytes));
  set_divisor_ = FixedDivisor(static_cast<std::uint64_t>(sets_));
  const auto frames = static_cast<std::size_t>(lines);
  lines_.assign(frames, Line{});
  prev_.assign(frames, kNone);
  next_.assign(frames, kNone);
  head_.assign(static_cast<std::size_t>(sets_), kNone);
  tail_.assign(static_cast<std::size_t>(sets_), kNone);
  // Pushing ways 0, 1, ... to the front leaves way 0 at the tail: invalid frames are taken
  // lowest way first, and stay behind every valid frame (lines are never invalidated).
  for (std::int64_t set = 0; set < sets_; ++set) {
    for (std::int64_t way = 0; way < ways_; ++way) {
      push_front(set, set * ways_ + way);
    }
  }
  // Index at most half full keeps linear probes short.
  while ((std::int64_t{1} << slot_bits_) < 2 * lines) {
    ++slot_bits_;
  }
  slots_.assign(std::size_t{1} << slot_bits_, kNone);

  read_hits_ = stats_.add_counter("read_hits", "line accesses", "loads that found the line");
  read_misses_ = stats_.add_counter("read_misses", "line accesses", "loads that missed");
  write_hits_ = stats_.add_counter("write_hits", "line accesses", "stores that found the line");
  write_misses_ = stats_.add_counter("write_misses", "line accesses", "stores that missed");
  evictions_ =
      stats_.add_counter("evictions", "lines", "valid lines replaced to make room for another");
  writebacks_ = stats_.add_counter("writebacks", "lines",
                                   "dirty lines evicted and written to the next level");
}

std::size_t SetAssociativeCache::home_slot(std::uint64_t line_number) const {
  // Fibonacci hashing: the top slot_bits_ bits of the product.
  constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ULL;
  return static_cast<std::size_t>((line_number * kMultiplier) >> (64 - slot_bits_));
}

std::int64_t SetAssociativeCache::find(std::uint64_t line_number) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = home_slot(line_number);; slot = (slot + 1) & mask) {
    const std::int64_t frame = slots_[slot];
    if (frame == kNone || lines_[static_cast<std::size_t>(frame)].line_number == line_number) {
      return frame;
    }
  }
}

void SetAssociativeCache::index_insert(std::int64_t frame) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = home_slot(lines_[static_cast<std::size_t>(frame)].line_number);
  while (slots_[slot] != kNone) {
    slot = (slot + 1) & mask;
  }
  slots_[slot] = frame;
}

void SetAssociativeCache::index_erase(std::uint64_t line_number) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t hole = home_slot(line_number);
  while (lines_[static_cast<std::size_t>(slots_[hole])].line_number != line_number) {
    hole = (hole + 1) & mask;
  }
  // Backward-shift deletion: move later entries of the probe run into the hole unless their
  // home slot lies cyclically in (hole, current].
  for (std::size_t current = (hole + 1) & mask; slots_[current] != kNone;
       current = (current + 1) & mask) {
    const std::size_t home =
        home_slot(lines_[static_cast<std::size_t>(slots_[current])].line_number);
    const bool stays =
        hole <= current ? (hole < home && home <= current) : (hole < home || home <= current);
    if (!stays) {
      slots_[hole] = slots_[current];
      hole = current;
    }
  }
  slots_[hole] = kNone;
}

void SetAssociativeCache::unlink(std::int64_t set, std::int64_t frame) {
  const auto f = static_cast<std::size_t>(frame);
  const auto s = static_cast<std::size_t>(set);
  if (prev_[f] != kNone) {
    next_[static_cast<std::size_t>(prev_[f])] = next_[f];
  } else {
    head_[s] = next_[f];
  }
  if (next_[f] != kNone) {
    prev_[static_cast<std::size_t>(next_[f])] = prev_[f];
  } else {
    tail_[s] = prev_[f];
  }
}

void SetAssociativeCache::push_front(std::int64_t set, std::int64_t frame) {
  const auto f = static_cast<std::size_t>(frame);
  const auto s = static_cast<std::size_t>(set);
  prev_[f] = kNone;
  next_[f] = head_[s];
  if (head_[s] != kNone) {
    prev_[static_cast<std::size_t>(head_[s])] = frame;
  } else {
    tail_[s] = frame;
  }
  head_[s] = frame;
}

bool SetAssociativeCache::contains(std::uint64_t address) const {
  return find(line_bytes_.quotient(address)) != kNone;
}

CacheAccessResult SetAssociativeCache::access(std::uint64_t address, bool is_write) {
  const std::uint64_t line_number = line_bytes_.quotient(address);
  const auto set = static_cast<std::int64_t>(set_divisor_.remainder(line_number));
  CacheAccessResult result;
  const std::int64_t hit_frame = find(line_number);
  if (hit_frame != kNone) {
    unlink(set, hit_frame);
    push_front(set, hit_frame);
    if (is_write && policy_ == WritePolicy::kWriteBackAllocate) {
      lines_[static_cast<std::size_t>(hit_frame)].dirty = true;
    }
    stats_.increment(is_write ? write_hits_ : read_hits_);
    result.hit = true;
    result.frame = hit_frame;
    return result;
  }
  stats_.increment(is_write ? write_misses_ : read_misses_);
  if (is_write && policy_ == WritePolicy::kWriteThroughNoAllocate) {
    return result;  // no allocation
  }
  const std::int64_t victim = tail_[static_cast<std::size_t>(set)];
  Line& line = lines_[static_cast<std::size_t>(victim)];
  if (line.valid) {
    stats_.increment(evictions_);
    if (line.dirty) {
      stats_.increment(writebacks_);
      result.writeback = true;
      result.writeback_address = line.line_number * line_bytes_.divisor();
    }
    index_erase(line.line_number);
  }
  line = Line{line_number, true, is_write};
  index_insert(victim);
  unlink(set, victim);
  push_front(set, victim);
  result.frame = victim;
  return result;
}

std::unique_ptr<Cache> make_cache(const model::CacheSpec& spec, WritePolicy policy,
                                  const std::string& name) {
  return std::make_unique<SetAssociativeCache>(spec, policy, name);
}

}  // namespace marlin::timing
