#include "model/timing/packed_trace.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "model/common/invariant.h"

namespace marlin::timing {
namespace {

// A copy reads at most this many ops back (the reader's ring holds them).
constexpr std::uint32_t kMaxDistance = 2048;
// An extrapolated access reads at most this many records back (twice the copy's distance in
// records); the reader keeps them.
constexpr std::uint64_t kMaxAccessReach = 8192;
// Earlier ops with the same fields tried as a copy's source, nearest first.
constexpr int kCandidates = 4;
constexpr std::size_t kHashBits = 12;

// A literal op's first byte: its class and two flags.
constexpr std::uint8_t kFullMask = 0x80;
constexpr std::uint8_t kHasDep = 0x40;
constexpr std::uint8_t kClassBits = 0x3F;

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(v));
}

// The record a copied access becomes: the copied record with its offset advanced by as much as
// it advanced since `earlier`, the record as far back (kept as it is without one).
sim::MemAccess extrapolated(const sim::MemAccess& copied, const sim::MemAccess* earlier) {
  sim::MemAccess out = copied;
  if (earlier != nullptr) out.offset = copied.offset + (copied.offset - earlier->offset);
  return out;
}

class Packer {
 public:
  explicit Packer(const sim::SimdgroupTrace& sg) : sg_(sg) {}

  // Whether every op with accesses stores them right after the previous such op's; notes the
  // records stored before each op.
  [[nodiscard]] bool in_op_order() {
    cursor_.resize(sg_.ops.size());
    std::uint32_t cursor = 0;
    for (std::size_t i = 0; i < sg_.ops.size(); ++i) {
      const sim::TraceOp& op = sg_.ops[i];
      cursor_[i] = cursor;
      if (!sim::has_accesses(op.op)) continue;
      if (op.first_access != cursor) return false;
      cursor += stored(op);
      if (cursor > sg_.accesses.size()) return false;
    }
    return cursor == sg_.accesses.size();
  }

  void pack(PackedTrace& out) {
    const auto n = static_cast<std::uint32_t>(sg_.ops.size());
    head_.assign(std::size_t{1} << kHashBits, kNone);
    previous_.assign(n, kNone);
    std::uint32_t run_distance = 0;  // of the open run; 0: literal
    std::uint32_t run_length = 0;
    std::vector<std::uint8_t> literals;  // the open literal run's encoded ops
    const auto close_run = [&] {
      if (run_length == 0) return;
      put_varint(out.bytes, std::uint64_t{run_length} << 1 | (run_distance > 0 ? 1 : 0));
      if (run_distance > 0) put_varint(out.bytes, run_distance);
      out.bytes.insert(out.bytes.end(), literals.begin(), literals.end());
      literals.clear();
      run_length = 0;
    };
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint32_t distance = 0;
      if (run_distance > 0 && copies(i, run_distance)) {
        distance = run_distance;
      } else {
        distance = find_source(i);
      }
      remember(i);
      if (run_length > 0 && distance != run_distance) close_run();
      run_distance = distance;
      ++run_length;
      if (distance == 0) {
        put_literal(literals, i);
      } else {
        out.max_distance = std::max(out.max_distance, distance);
        const sim::TraceOp& op = sg_.ops[i];
        if (sim::has_accesses(op.op)) {
          const std::uint64_t back = op.first_access - sg_.ops[i - distance].first_access;
          out.access_reach =
              static_cast<std::uint32_t>(std::max<std::uint64_t>(out.access_reach, 2 * back));
        }
      }
    }
    close_run();
    out.bytes.shrink_to_fit();
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  [[nodiscard]] std::uint32_t stored(const sim::TraceOp& op) const {
    return sim::stored_accesses(sg_.accesses.data() + op.first_access, op.count);
  }

  // A hash of the fields a copy keeps: class, kind, count, mask, how far back the dep is, and
  // the chain of an op without accesses.
  [[nodiscard]] std::size_t hash(std::uint32_t i) const {
    const sim::TraceOp& op = sg_.ops[i];
    std::uint64_t h = static_cast<std::uint64_t>(op.op) | std::uint64_t{op.kind} << 8 |
                      std::uint64_t{op.count} << 16 | std::uint64_t{op.mask} << 32;
    const std::uint64_t back = op.dep < 0 ? 0 : i - static_cast<std::uint32_t>(op.dep);
    const std::uint64_t aux = sim::has_accesses(op.op) ? 0 : this->aux(i);
    h ^= (back * 0x9E3779B97F4A7C15ULL) ^ (aux * 0xC2B2AE3D27D4EB4FULL);
    h *= 0xD6E8FEB86659FD93ULL;
    return static_cast<std::size_t>(h >> (64 - kHashBits));
  }

  void remember(std::uint32_t i) {
    const std::size_t h = hash(i);
    previous_[i] = head_[h];
    head_[h] = i;
  }

  // The distance of the nearest earlier op op `i` is a copy of (0: none).
  [[nodiscard]] std::uint32_t find_source(std::uint32_t i) const {
    std::uint32_t candidate = head_[hash(i)];
    for (int tried = 0; tried < kCandidates && candidate != kNone; ++tried) {
      const std::uint32_t distance = i - candidate;
      if (distance > kMaxDistance) break;
      if (copies(i, distance)) return distance;
      candidate = previous_[candidate];
    }
    return 0;
  }

  // Whether op i is the copy of op i - distance (see packed_trace.h).
  [[nodiscard]] bool copies(std::uint32_t i, std::uint32_t distance) const {
    if (distance > i) return false;
    const sim::TraceOp& to = sg_.ops[i];
    const sim::TraceOp& from = sg_.ops[i - distance];
    if (to.op != from.op || to.kind != from.kind || to.count != from.count ||
        to.mask != from.mask || (to.dep < 0) != (from.dep < 0)) {
      return false;
    }
    if (to.dep >= 0 && static_cast<std::int64_t>(to.dep) != from.dep + std::int64_t{distance}) {
      return false;
    }
    if (!sim::has_accesses(to.op)) return aux(i) == aux(i - distance);
    const std::uint64_t back = to.first_access - from.first_access;
    if (2 * back > kMaxAccessReach || stored(to) != stored(from)) return false;
    const sim::MemAccess* records = sg_.accesses.data();
    for (std::uint32_t r = 0; r < stored(to); ++r) {
      const std::uint64_t copied = from.first_access + r;
      const sim::MemAccess* earlier = copied >= back ? records + (copied - back) : nullptr;
      if (!(extrapolated(records[copied], earlier) == records[to.first_access + r])) return false;
    }
    return true;
  }

  void put_literal(std::vector<std::uint8_t>& out, std::uint32_t i) const {
    const sim::TraceOp& op = sg_.ops[i];
    const bool full = op.mask == ~std::uint32_t{0};
    out.push_back(static_cast<std::uint8_t>(static_cast<std::uint8_t>(op.op) |
                                            (full ? kFullMask : 0) | (op.dep >= 0 ? kHasDep : 0)));
    out.push_back(op.kind);
    put_varint(out, op.count);
    if (!full) put_varint(out, op.mask);
    if (op.dep >= 0) put_varint(out, i - static_cast<std::uint32_t>(op.dep));
    if (!sim::has_accesses(op.op)) {
      put_varint(out, aux(i));
      return;
    }
    for (std::uint32_t r = 0; r < stored(op); ++r) {
      const sim::MemAccess& a = sg_.accesses[op.first_access + r];
      put_varint(out, a.offset);
      put_varint(out, a.buffer);
      out.push_back(a.bytes);
      out.push_back(a.lane);
    }
  }

  // The first_access / chain field of op i, which has no accesses, as stored: an ALU op's
  // chain; for other ops 0 when the field is the count of records stored before the op (the
  // engine puts that count there), else the field plus one.
  [[nodiscard]] std::uint64_t aux(std::uint32_t i) const {
    const sim::TraceOp& op = sg_.ops[i];
    if (op.op == sim::OpClass::kAlu) return op.chain;
    return op.first_access == cursor_[i] ? 0 : std::uint64_t{op.first_access} + 1;
  }

  const sim::SimdgroupTrace& sg_;
  std::vector<std::uint32_t> cursor_;    // per op: access records stored before it
  std::vector<std::uint32_t> head_;      // per hash: the newest op with it
  std::vector<std::uint32_t> previous_;  // per op: the previous op with its hash
};

static_assert(static_cast<std::uint8_t>(sim::OpClass::kMatrixCopy) <= kClassBits);

}  // namespace

std::optional<PackedTrace> pack_trace(const sim::SimdgroupTrace& sg, std::size_t reach) {
  if (reach > kMaxPackedReach || sg.ops.size() > std::numeric_limits<std::uint32_t>::max()) {
    return std::nullopt;
  }
  Packer packer(sg);
  if (!packer.in_op_order()) return std::nullopt;
  PackedTrace out;
  out.threadgroup = sg.threadgroup;
  out.simdgroup = sg.simdgroup;
  out.op_count = static_cast<std::uint32_t>(sg.ops.size());
  out.reach = static_cast<std::uint32_t>(reach);
  packer.pack(out);
  return out;
}

// ---- PackedTraceReader --------------------------------------------------------------------

void PackedTraceReader::start(const PackedTrace& trace) {
  trace_ = &trace;
  pos_ = 0;
  run_left_ = 0;
  distance_ = 0;
  end_ = 0;
  // Unpacking op i overwrites op i - size: size > max_distance keeps a copy's source, and
  // size >= kAhead + reach keeps the ops the replay reads (from pc - reach + 1, and pc - 1).
  const std::size_t size = std::bit_ceil(
      std::max<std::size_t>({std::size_t{trace.max_distance} + 1,
                             kAhead + std::max<std::size_t>(trace.reach, 2), ring_.size()}));
  ring_.resize(size);
  first_of_.resize(size);
  mask_ = static_cast<std::uint32_t>(size - 1);
  buffer_.clear();
  base_ = 0;
}

void PackedTraceReader::fill(std::uint32_t pc) {
  MARLIN_CHECK(trace_ != nullptr && pc <= end_, "a packed trace is read in order");
  // Keep the records of the ops from pc on and access_reach records before the end; drop the
  // rest once it is at least half the buffer (each record moves O(1) times).
  const std::uint64_t cursor = base_ + buffer_.size();
  std::uint64_t keep = cursor > trace_->access_reach ? cursor - trace_->access_reach : 0;
  for (std::uint32_t i = pc; i < end_; ++i) {
    if (sim::has_accesses(ring_[i & mask_].op)) keep = std::min(keep, first_of_[i & mask_]);
  }
  keep = std::max(keep, base_);
  const std::uint64_t drop = keep - base_;
  if (drop > 0 && 2 * drop >= buffer_.size()) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(drop));
    base_ = keep;
    for (std::uint32_t i = pc; i < end_; ++i) {
      sim::TraceOp& op = ring_[i & mask_];
      if (sim::has_accesses(op.op)) op.first_access -= static_cast<std::uint32_t>(drop);
    }
  }
  const std::uint32_t target = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(trace_->op_count, std::uint64_t{pc} + kAhead));
  while (end_ < target) unpack_one();
}

std::uint64_t PackedTraceReader::read_varint() {
  const std::vector<std::uint8_t>& bytes = trace_->bytes;
  std::uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    MARLIN_CHECK(pos_ < bytes.size() && shift < 64, "a packed trace ends inside a number");
    const std::uint8_t b = bytes[pos_++];
    v |= std::uint64_t{b & 0x7Fu} << shift;
    if ((b & 0x80) == 0) return v;
  }
}

void PackedTraceReader::unpack_one() {
  if (run_left_ == 0) {
    const std::uint64_t header = read_varint();
    run_left_ = static_cast<std::uint32_t>(header >> 1);
    distance_ = (header & 1) != 0 ? static_cast<std::uint32_t>(read_varint()) : 0;
    MARLIN_CHECK(run_left_ > 0, "a packed run holds at least one op");
  }
  sim::TraceOp op;
  if (distance_ == 0) {
    unpack_literal(op);
  } else {
    unpack_copy(op);
  }
  ring_[end_ & mask_] = op;
  --run_left_;
  ++end_;
}

void PackedTraceReader::unpack_literal(sim::TraceOp& op) {
  const std::vector<std::uint8_t>& bytes = trace_->bytes;
  MARLIN_CHECK(pos_ + 2 <= bytes.size(), "a packed trace ends inside an op");
  const std::uint8_t first = bytes[pos_++];
  op.op = static_cast<sim::OpClass>(first & kClassBits);
  op.kind = bytes[pos_++];
  op.count = static_cast<std::uint16_t>(read_varint());
  op.mask =
      (first & kFullMask) != 0 ? ~std::uint32_t{0} : static_cast<std::uint32_t>(read_varint());
  op.dep = (first & kHasDep) != 0 ? static_cast<std::int32_t>(end_ - read_varint()) : -1;
  const std::uint64_t at = base_ + buffer_.size();
  if (!sim::has_accesses(op.op)) {
    const std::uint64_t aux = read_varint();  // Packer::aux
    if (op.op == sim::OpClass::kAlu) {
      op.chain = static_cast<std::uint32_t>(aux);
    } else {
      op.first_access = static_cast<std::uint32_t>(aux == 0 ? at : aux - 1);
    }
    first_of_[end_ & mask_] = at;
    return;
  }
  std::uint32_t records = op.count;
  for (std::uint32_t r = 0; r < records; ++r) {
    sim::MemAccess a;
    a.offset = static_cast<std::uint32_t>(read_varint());
    a.buffer = static_cast<std::uint16_t>(read_varint());
    MARLIN_CHECK(pos_ + 2 <= bytes.size(), "a packed trace ends inside an access");
    a.bytes = bytes[pos_++];
    a.lane = bytes[pos_++];
    if (r == 0 && sim::is_affine_run(&a, op.count)) records = 2;
    buffer_.push_back(a);
  }
  op.first_access = static_cast<std::uint32_t>(at - base_);
  first_of_[end_ & mask_] = at;
}

void PackedTraceReader::unpack_copy(sim::TraceOp& op) {
  const std::uint32_t from = end_ - distance_;
  op = ring_[from & mask_];
  if (op.dep >= 0) op.dep += static_cast<std::int32_t>(distance_);
  const std::uint64_t at = base_ + buffer_.size();
  if (!sim::has_accesses(op.op)) {
    // Packer::aux is copied: a field that counted the records before its op still does.
    if (op.op != sim::OpClass::kAlu &&
        op.first_access == static_cast<std::uint32_t>(first_of_[from & mask_])) {
      op.first_access = static_cast<std::uint32_t>(at);
    }
    first_of_[end_ & mask_] = at;
    return;
  }
  const std::uint64_t copied = first_of_[from & mask_];
  const std::uint64_t back = at - copied;
  MARLIN_CHECK(copied >= base_, "a copied op's accesses are still held");
  const std::uint32_t records = sim::stored_accesses(buffer_.data() + (copied - base_), op.count);
  for (std::uint32_t r = 0; r < records; ++r) {
    const std::uint64_t source = copied + r;
    MARLIN_CHECK(source < back || source - back >= base_, "an extrapolation's record is held");
    const sim::MemAccess next = extrapolated(
        buffer_[source - base_], source >= back ? &buffer_[source - back - base_] : nullptr);
    buffer_.push_back(next);
  }
  op.first_access = static_cast<std::uint32_t>(at - base_);
  first_of_[end_ & mask_] = at;
}

sim::SimdgroupTrace unpack_trace(const PackedTrace& packed) {
  sim::SimdgroupTrace out;
  out.threadgroup = packed.threadgroup;
  out.simdgroup = packed.simdgroup;
  out.ops.reserve(packed.op_count);
  PackedTraceReader reader;
  reader.start(packed);
  for (std::uint32_t pc = 0; pc < packed.op_count; ++pc) {
    if (pc + 2 > reader.end()) reader.fill(pc);
    sim::TraceOp op = reader.ops()[pc & reader.mask()];
    if (sim::has_accesses(op.op)) {
      const sim::MemAccess* stored = reader.accesses() + op.first_access;
      const std::uint32_t records = sim::stored_accesses(stored, op.count);
      op.first_access = static_cast<std::uint32_t>(out.accesses.size());
      out.accesses.insert(out.accesses.end(), stored, stored + records);
    }
    out.ops.push_back(op);
  }
  return out;
}

}  // namespace marlin::timing
