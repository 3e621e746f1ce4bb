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
// The hash index starts with 16 slots (8 lines) and doubles from there.
constexpr int kInitialSlotBits = 4;

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
  // Sized once: calloc's pages are mapped as frames and sets come into use.
  const auto frames = static_cast<std::size_t>(lines);
  const auto sets = static_cast<std::size_t>(sets_);
  lines_.resize(frames);
  prev_.resize(frames);
  next_.resize(frames);
  head_.resize(sets);
  tail_.resize(sets);
  filled_.resize(sets);
  slot_bits_ = kInitialSlotBits;
  slots_.assign(std::size_t{1} << slot_bits_, 0);

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

SetAssociativeCache::Frame SetAssociativeCache::find(std::uint64_t line_number) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = home_slot(line_number);; slot = (slot + 1) & mask) {
    const std::uint32_t entry = slots_[slot];
    if (entry == 0) return kNone;
    const auto frame = static_cast<Frame>(entry - 1);
    if (lines_[static_cast<std::size_t>(frame)].line_number == line_number) return frame;
  }
}

void SetAssociativeCache::index_insert(Frame frame) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = home_slot(lines_[static_cast<std::size_t>(frame)].line_number);
  while (slots_[slot] != 0) {
    slot = (slot + 1) & mask;
  }
  slots_[slot] = static_cast<std::uint32_t>(frame) + 1;
}

void SetAssociativeCache::index_erase(std::uint64_t line_number) {
  const std::size_t mask = slots_.size() - 1;
  const auto line_at = [&](std::size_t slot) {
    return lines_[static_cast<std::size_t>(slots_[slot] - 1)].line_number;
  };
  std::size_t hole = home_slot(line_number);
  while (line_at(hole) != line_number) {
    hole = (hole + 1) & mask;
  }
  // Backward-shift deletion: move later entries of the probe run into the hole unless their
  // home slot lies cyclically in (hole, current].
  for (std::size_t current = (hole + 1) & mask; slots_[current] != 0;
       current = (current + 1) & mask) {
    const std::size_t home = home_slot(line_at(current));
    const bool stays =
        hole <= current ? (hole < home && home <= current) : (hole < home || home <= current);
    if (!stays) {
      slots_[hole] = slots_[current];
      hole = current;
    }
  }
  slots_[hole] = 0;
}

void SetAssociativeCache::grow_index() {
  ++slot_bits_;
  slots_.assign(std::size_t{1} << slot_bits_, 0);
  for (Frame frame = 0; frame < frames_used_; ++frame) {
    index_insert(frame);
  }
}

void SetAssociativeCache::add_front(std::size_t set, Frame frame) {
  const auto f = static_cast<std::size_t>(frame);
  prev_[f] = kNone;
  if (filled_[set]++ == 0) {
    next_[f] = kNone;
    tail_[set] = frame;
  } else {
    next_[f] = head_[set];
    prev_[static_cast<std::size_t>(head_[set])] = frame;
  }
  head_[set] = frame;
}

void SetAssociativeCache::touch(std::size_t set, Frame frame) {
  const Frame head = head_[set];
  if (head == frame) return;
  // Not the head, so it has a predecessor.
  const auto f = static_cast<std::size_t>(frame);
  next_[static_cast<std::size_t>(prev_[f])] = next_[f];
  if (next_[f] != kNone) {
    prev_[static_cast<std::size_t>(next_[f])] = prev_[f];
  } else {
    tail_[set] = prev_[f];
  }
  prev_[f] = kNone;
  next_[f] = head;
  prev_[static_cast<std::size_t>(head)] = frame;
  head_[set] = frame;
}

bool SetAssociativeCache::contains(std::uint64_t address) const {
  return find(line_bytes_.quotient(address)) != kNone;
}

CacheAccessResult SetAssociativeCache::access(std::uint64_t address, bool is_write) {
  const std::uint64_t line_number = line_bytes_.quotient(address);
  const auto set = static_cast<std::size_t>(set_divisor_.remainder(line_number));
  CacheAccessResult result;
  const Frame hit_frame = find(line_number);
  if (hit_frame != kNone) {
    touch(set, hit_frame);
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
  Frame frame = 0;
  if (filled_[set] < static_cast<std::uint64_t>(ways_)) {
    // A free way: a new frame, at the head of the set's list.
    if (2 * (static_cast<std::size_t>(frames_used_) + 1) > slots_.size()) grow_index();
    frame = frames_used_++;
    lines_[static_cast<std::size_t>(frame)] = Line{line_number, is_write};
    index_insert(frame);
    add_front(set, frame);
  } else {
    frame = tail_[set];
    Line& victim = lines_[static_cast<std::size_t>(frame)];
    stats_.increment(evictions_);
    if (victim.dirty) {
      stats_.increment(writebacks_);
      result.writeback = true;
      result.writeback_address = victim.line_number * line_bytes_.divisor();
    }
    index_erase(victim.line_number);
    victim = Line{line_number, is_write};
    index_insert(frame);
    touch(set, frame);
  }
  result.frame = frame;
  return result;
}

std::unique_ptr<Cache> make_cache(const model::CacheSpec& spec, WritePolicy policy,
                                  const std::string& name) {
  return std::make_unique<SetAssociativeCache>(spec, policy, name);
}

}  // namespace marlin::timing
