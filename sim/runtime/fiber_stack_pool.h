// Fixed-size fiber stacks reused across threadgroups and launches (one pool per host worker),
// so creating a lane's fiber costs no system call or heap allocation once the pool is warm.
//
// Stacks are carved from 2 MiB slabs marked for transparent huge pages: a threadgroup of
// 1024 fibers touches 1024 stacks per barrier, and with 4 KiB pages every switch would miss
// the TLB. Stack tops are also staggered by multiples of 64 bytes (up to kColorBytes) so the
// hot frames of many fibers do not all map to the same cache sets. The lowest kCanaryBytes
// of each stack hold a pattern checked when the stack is returned: a fiber that ran past
// its stack is reported (best effort: the overflow may already have corrupted memory).
#pragma once

#include <sys/mman.h>

#include <boost/context/stack_context.hpp>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace marlin::sim {

class FiberStackPool {
 public:
  static constexpr std::size_t kColorBytes = 4096;
  static constexpr std::size_t kSlabBytes = 2 * 1024 * 1024;
  static constexpr std::size_t kCanaryBytes = 256;
  static constexpr unsigned char kCanary = 0xA5;

  explicit FiberStackPool(std::size_t stack_bytes) : stack_bytes_(round_up(stack_bytes)) {}
  FiberStackPool(const FiberStackPool&) = delete;
  FiberStackPool& operator=(const FiberStackPool&) = delete;
  ~FiberStackPool() {
    for (void* p : slabs_) std::free(p);
  }

  std::size_t stack_bytes() const { return stack_bytes_; }
  static std::size_t round_up(std::size_t n) { return (n + 4095) / 4096 * 4096; }

  boost::context::stack_context allocate() {
    if (free_.empty()) grow();
    char* base = free_.back();
    free_.pop_back();
    std::memset(base, kCanary, kCanaryBytes);
    const std::size_t color = (next_color_++ % (kColorBytes / 64)) * 64;
    boost::context::stack_context sctx;
    sctx.size = stack_bytes_ + color;
    sctx.sp = base + stack_bytes_ + color;
    return sctx;
  }
  void deallocate(boost::context::stack_context& sctx) {
    char* base = static_cast<char*>(sctx.sp) - sctx.size;
    for (std::size_t i = 0; i < kCanaryBytes; ++i) {
      if (static_cast<unsigned char>(base[i]) != kCanary) overflowed_ = true;
    }
    free_.push_back(base);
  }
  // True once if a returned stack's canary was overwritten since the last call.
  bool take_overflow() {
    const bool o = overflowed_;
    overflowed_ = false;
    return o;
  }

 private:
  void grow() {
    const std::size_t chunk = stack_bytes_ + kColorBytes;
    const std::size_t slab = chunk > kSlabBytes ? chunk : kSlabBytes;
    void* p = std::aligned_alloc(kSlabBytes, (slab + kSlabBytes - 1) / kSlabBytes * kSlabBytes);
    if (p == nullptr) throw std::bad_alloc();
    madvise(p, slab, MADV_HUGEPAGE);  // a hint; failure only costs speed
    slabs_.push_back(p);
    for (std::size_t off = 0; off + chunk <= slab; off += chunk) {
      free_.push_back(static_cast<char*>(p) + off);
    }
  }

  std::size_t stack_bytes_;
  std::size_t next_color_ = 0;
  bool overflowed_ = false;
  std::vector<char*> free_;
  std::vector<void*> slabs_;
};

// The StackAllocator handle Boost.Context copies into each fiber.
class PooledStack {
 public:
  explicit PooledStack(FiberStackPool* pool) : pool_(pool) {}
  boost::context::stack_context allocate() { return pool_->allocate(); }
  void deallocate(boost::context::stack_context& sctx) { pool_->deallocate(sctx); }

 private:
  FiberStackPool* pool_;
};

}  // namespace marlin::sim
