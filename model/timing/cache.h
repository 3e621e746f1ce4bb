// Cache: tag state of one cache (which lines it holds), with hit/miss and write-back results.
//
// Interface plus a factory. A cache holds no timing; the memory hierarchy (memory_hierarchy.h)
// turns its answers into cycles. Addresses are byte addresses; the cache maps them to lines
// with its own line size. Results are deterministic: the same sequence of calls gives the same
// answers. One call per line request (a virtual call per line, not per lane).
#pragma once

#include <cstdint>
#include <memory>

#include "model/device/device_spec.h"
#include "model/timing/stats.h"

namespace marlin::timing {

// What a cache does with stores.
enum class WritePolicy {
  // A store updates the line if present and never allocates; the store always continues to
  // the next level. Lines are never dirty. Used for the per-core L1 (as on most GPUs).
  kWriteThroughNoAllocate,
  // A store allocates the line on a miss (without fetching it: stores carry byte masks) and
  // marks it dirty; a dirty line evicted later is written back to the next level. Used for L2
  // and the SLC.
  kWriteBackAllocate,
};

struct CacheAccessResult {
  bool hit = false;
  // Frame (index in [0, frames())) now holding the line, or -1 if the access did not allocate.
  // Callers may keep per-frame data (e.g. the cycle a line's fill completes) indexed by it.
  std::int64_t frame = -1;
  bool writeback = false;               // a dirty line was evicted to make room
  std::uint64_t writeback_address = 0;  // first byte of that line, if writeback
};

class Cache {
 public:
  virtual ~Cache() = default;

  // Looks up the line holding `address`, updates replacement state, allocates on a miss as the
  // write policy says.
  virtual CacheAccessResult access(std::uint64_t address, bool is_write) = 0;

  // True if the line holding `address` is present; changes nothing.
  [[nodiscard]] virtual bool contains(std::uint64_t address) const = 0;

  [[nodiscard]] virtual std::int64_t frames() const = 0;
  [[nodiscard]] virtual int line_bytes() const = 0;
  [[nodiscard]] virtual const StatRegistry& stats() const = 0;
};

// Builds a set-associative LRU cache from the spec (associativity 0 = fully associative).
// `name` ("memory.l1") prefixes error messages. Throws InputError on an inconsistent spec.
std::unique_ptr<Cache> make_cache(const model::CacheSpec& spec, WritePolicy policy,
                                  const std::string& name);

}  // namespace marlin::timing
