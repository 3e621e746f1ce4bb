// The threadgroup-memory sanitizer's shadow, one cell per granule, against a plain per-byte
// reference of the same rules (threadgroup_shadow.h): random accesses of every size and
// alignment, from threads of two simdgroups, across barriers and simdgroup syncs.
#include "sim/runtime/threadgroup_shadow.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace marlin::sim {
namespace {

// What one byte remembers, and the rules, written out per byte.
struct ReferenceByte {
  bool written = false;
  std::uint32_t write_epoch = 0, read_epoch = 0;  // barrier phases; 0 = never
  std::uint32_t write_simd = 0, read_simd = 0;    // the accessing simdgroup's sync count
  std::uint32_t writer = 0, reader = 0;
};

struct Verdict {
  ShadowVerdict kind = ShadowVerdict::kOk;
  std::uint32_t other = 0;
  friend bool operator==(const Verdict&, const Verdict&) = default;
};

class Reference {
 public:
  explicit Reference(std::size_t bytes) : bytes_(bytes) {}
  void barrier() { ++phase_; }
  void simd_sync(std::uint32_t simdgroup) { ++simd_syncs_[simdgroup]; }
  Verdict access(std::size_t byte, std::uint32_t thread, bool write, bool atomic) {
    ReferenceByte& b = bytes_[byte];
    const std::uint32_t sg = thread / 32;
    const auto ordered = [&](std::uint32_t other, std::uint32_t syncs_then) {
      return other / 32 == sg && syncs_then != simd_syncs_[sg];
    };
    Verdict v;
    if (atomic) {
    } else if (!write && !b.written) {
      v.kind = ShadowVerdict::kUninitialized;
    } else if (b.written && b.write_epoch == phase_ && b.writer != thread &&
               !ordered(b.writer, b.write_simd)) {
      v = {ShadowVerdict::kRaceWithWriter, b.writer};
    } else if (write && b.read_epoch == phase_ && b.reader != thread &&
               !ordered(b.reader, b.read_simd)) {
      v = {ShadowVerdict::kRaceWithReader, b.reader};
    }
    if (write) {
      b.written = true;
      b.write_epoch = phase_;
      b.write_simd = simd_syncs_[sg];
      b.writer = thread;
    } else {
      b.read_epoch = phase_;
      b.read_simd = simd_syncs_[sg];
      b.reader = thread;
    }
    return v;
  }

 private:
  std::vector<ReferenceByte> bytes_;
  std::uint32_t phase_ = 1;
  std::uint32_t simd_syncs_[2] = {0, 0};
};

// The shadow's verdicts for an access, spread to each of its bytes; every byte must get
// exactly one.
std::vector<Verdict> shadow_access(ThreadgroupShadow& shadow, std::size_t offset, std::size_t n,
                                   const ShadowAccess& a) {
  std::vector<Verdict> out(n);
  std::vector<int> given(n, 0);
  shadow.access(offset, n, a,
                [&](std::size_t first, std::size_t bytes, ShadowVerdict v, std::uint32_t other) {
                  for (std::size_t b = first; b < first + bytes; ++b) {
                    out.at(b) = {v, other};
                    ++given.at(b);
                  }
                });
  EXPECT_EQ(given, std::vector<int>(n, 1)) << "bytes " << offset << " + " << n;
  return out;
}

TEST(ThreadgroupShadowTest, CellsPerGranuleGiveEachByteItsOwnVerdict) {
  constexpr std::size_t kBytes = 256;
  std::mt19937 random(11);
  for (int threadgroup = 0; threadgroup < 40; ++threadgroup) {
    ThreadgroupShadow shadow;  // a fresh one starts with 4-byte granules
    shadow.begin_threadgroup(kBytes);
    Reference reference(kBytes);
    std::uint32_t simd_epoch[2] = {shadow.next_simd_epoch(), shadow.next_simd_epoch()};
    // Mostly aligned words, halves and rows; now and then a byte or a misaligned half.
    for (int step = 0; step < 400; ++step) {
      const std::uint32_t roll = random() % 100;
      if (roll < 3) {
        shadow.barrier();
        reference.barrier();
        continue;
      }
      if (roll < 8) {
        const std::uint32_t sg = random() % 2;
        simd_epoch[sg] = shadow.next_simd_epoch();
        reference.simd_sync(sg);
        continue;
      }
      const std::size_t size = roll < 12 ? 1 : std::size_t{1} << (1 + random() % 4);  // 1..16
      std::size_t offset = (random() % (kBytes / size)) * size;
      if (roll < 14 && size > 1 && offset + size + 1 <= kBytes) ++offset;  // misaligned
      ShadowAccess a;
      a.thread = random() % 64;
      a.simdgroup = a.thread / 32;
      a.simd_epoch = simd_epoch[a.simdgroup];
      a.write = random() % 2 == 0;
      a.atomic = random() % 20 == 0;
      if (a.atomic) a.write = true;
      const std::vector<Verdict> got = shadow_access(shadow, offset, size, a);
      for (std::size_t b = 0; b < size; ++b) {
        const Verdict want = reference.access(offset + b, a.thread, a.write, a.atomic);
        ASSERT_EQ(got[b], want) << "threadgroup " << threadgroup << " step " << step << " byte "
                                << offset + b << " granule " << shadow.granule();
      }
    }
  }
}

TEST(ThreadgroupShadowTest, SplitsOnlyForAccessesThatCutAGranule) {
  ThreadgroupShadow shadow;
  shadow.begin_threadgroup(64);
  EXPECT_EQ(shadow.granule(), 4u);
  shadow.cover(8, 16);  // whole words
  EXPECT_EQ(shadow.granule(), 4u);
  shadow.cover(6, 2);  // a half at an odd half
  EXPECT_EQ(shadow.granule(), 2u);
  shadow.cover(3, 1);  // a byte
  EXPECT_EQ(shadow.granule(), 1u);
  EXPECT_EQ(shadow.cell_of(3), 3u);
}

}  // namespace
}  // namespace marlin::sim
