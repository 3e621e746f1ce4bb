// Shadow state of threadgroup memory for the race and uninitialized-read sanitizer.
//
// One cell per byte records the last writer and last reader (thread index in the
// threadgroup) with the barrier epoch and their simdgroup's sync epoch at the time. Two
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

  // Checks and records one byte; `other` receives the conflicting thread.
  ShadowVerdict access_byte(std::size_t offset, const ShadowAccess& a, std::uint32_t* other);

 private:
  std::vector<ShadowCell> cells_;
  std::uint32_t counter_ = 0;
  std::uint32_t start_ = 0;  // epochs <= start_ belong to earlier threadgroups
  std::uint32_t epoch_ = 0;
};

}  // namespace marlin::sim
