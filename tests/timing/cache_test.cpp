#include "model/timing/cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/common/input_error.h"
#include "model/timing/set_associative_cache.h"

namespace marlin::timing {
namespace {

model::CacheSpec cache_spec(std::int64_t size, int line, int ways) {
  return model::CacheSpec{.size_bytes = size, .line_bytes = line, .associativity = ways};
}

// Hit (H) or miss (M) for each load of `addresses`.
std::string hit_pattern(Cache& cache, const std::vector<std::uint64_t>& addresses) {
  std::string pattern;
  for (const std::uint64_t a : addresses) {
    pattern += cache.access(a, false).hit ? 'H' : 'M';
  }
  return pattern;
}

TEST(SetAssociativeCacheTest, Geometry) {
  const SetAssociativeCache two_way(cache_spec(1024, 128, 2), WritePolicy::kWriteBackAllocate,
                                    "l2");
  EXPECT_EQ(two_way.sets(), 4);  // 1024 / 128 = 8 lines, 2 ways -> 4 sets
  EXPECT_EQ(two_way.ways(), 2);
  EXPECT_EQ(two_way.frames(), 8);
  const SetAssociativeCache full(cache_spec(1024, 128, 0), WritePolicy::kWriteBackAllocate, "l2");
  EXPECT_EQ(full.sets(), 1);
  EXPECT_EQ(full.ways(), 8);
}

TEST(SetAssociativeCacheTest, FullyAssociativeLru) {
  auto cache = make_cache(cache_spec(256, 128, 0), WritePolicy::kWriteBackAllocate, "l1");
  // Two lines. A=0, B=128, C=256.
  // A miss; B miss; A hit (last use: A step 3, B step 2); C miss evicts B; B miss evicts A
  // (A step 3, C step 4); C hit; A miss evicts B (B step 5, C step 6).
  EXPECT_EQ(hit_pattern(*cache, {0, 128, 0, 256, 128, 256, 0}), "MMHMMHM");
  EXPECT_EQ(cache->stats().value("read_hits"), 2);
  EXPECT_EQ(cache->stats().value("read_misses"), 5);
  EXPECT_EQ(cache->stats().value("evictions"), 3);
  EXPECT_EQ(cache->stats().value("writebacks"), 0);
}

TEST(SetAssociativeCacheTest, AddressesWithinALineShareIt) {
  auto cache = make_cache(cache_spec(256, 128, 0), WritePolicy::kWriteBackAllocate, "l1");
  EXPECT_EQ(hit_pattern(*cache, {130, 255, 128, 127}), "MHHM");
  EXPECT_TRUE(cache->contains(200));
  EXPECT_FALSE(cache->contains(256));
}

TEST(SetAssociativeCacheTest, SetsAreIndependent) {
  // 4 sets x 2 ways, 128-byte lines: line n -> set n mod 4.
  auto cache = make_cache(cache_spec(1024, 128, 2), WritePolicy::kWriteBackAllocate, "l2");
  const auto line = [](std::uint64_t n) { return n * 128; };
  // Lines 0, 4, 8 share set 0: 0 M, 4 M, 8 M (evicts 0), 1 M (set 1, no effect on set 0),
  // 4 H, 0 M (evicts 8: 4 was just used), 8 M (evicts 4), 1 H.
  EXPECT_EQ(
      hit_pattern(*cache, {line(0), line(4), line(8), line(1), line(4), line(0), line(8), line(1)}),
      "MMMMHMMH");
}

TEST(SetAssociativeCacheTest, FramesAreNumberedInFirstUseOrder) {
  // 4 sets x 2 ways: a line takes the next unused frame while its set has a free way, and
  // the frame of the line it replaces once the set is full.
  auto cache = make_cache(cache_spec(1024, 128, 2), WritePolicy::kWriteBackAllocate, "l2");
  EXPECT_EQ(cache->access(5ULL * 128, false).frame, 0);   // set 1
  EXPECT_EQ(cache->access(9ULL * 128, false).frame, 1);   // set 1
  EXPECT_EQ(cache->access(5ULL * 128, false).frame, 0);   // hit keeps its frame
  EXPECT_EQ(cache->access(2ULL * 128, false).frame, 2);   // set 2
  EXPECT_EQ(cache->access(13ULL * 128, false).frame, 1);  // set 1 full: replaces line 9 (LRU)
  EXPECT_EQ(cache->access(6ULL * 128, false).frame, 3);   // set 2
  EXPECT_EQ(cache->frames(), 8);
}

TEST(SetAssociativeCacheTest, ASystemLevelCacheSizeBuildsAndServes) {
  // The m4max SLC's geometry: 48 MiB of 128-byte lines, 16 ways (393,216 frames).
  auto cache = make_cache(cache_spec(std::int64_t{48} << 20, 128, 16),
                          WritePolicy::kWriteBackAllocate, "slc");
  EXPECT_EQ(cache->frames(), 393216);
  const std::uint64_t far = std::uint64_t{1} << 40;
  EXPECT_FALSE(cache->access(far, false).hit);
  EXPECT_FALSE(cache->access(128, true).hit);
  EXPECT_TRUE(cache->access(far + 127, false).hit);
  EXPECT_TRUE(cache->contains(200));
  EXPECT_FALSE(cache->contains(256));
}

TEST(SetAssociativeCacheTest, WriteBackAllocateWritesBackDirtyVictims) {
  auto cache = make_cache(cache_spec(256, 128, 0), WritePolicy::kWriteBackAllocate, "l2");
  const CacheAccessResult store = cache->access(0, true);  // miss, allocates dirty A
  EXPECT_FALSE(store.hit);
  EXPECT_GE(store.frame, 0);
  EXPECT_TRUE(cache->access(0, false).hit);
  cache->access(128, false);                              // B clean
  cache->access(0, false);                                // A most recent
  const CacheAccessResult c = cache->access(256, false);  // evicts clean B
  EXPECT_FALSE(c.writeback);
  const CacheAccessResult d = cache->access(384, false);  // evicts dirty A
  EXPECT_TRUE(d.writeback);
  EXPECT_EQ(d.writeback_address, 0U);
  EXPECT_EQ(cache->stats().value("write_misses"), 1);
  EXPECT_EQ(cache->stats().value("writebacks"), 1);
  EXPECT_EQ(cache->stats().value("evictions"), 2);
}

TEST(SetAssociativeCacheTest, WriteHitMakesALineDirty) {
  auto cache = make_cache(cache_spec(128, 128, 0), WritePolicy::kWriteBackAllocate, "l2");
  cache->access(640, false);
  EXPECT_TRUE(cache->access(700, true).hit);
  const CacheAccessResult next = cache->access(0, false);
  EXPECT_TRUE(next.writeback);
  EXPECT_EQ(next.writeback_address, 640U);
}

TEST(SetAssociativeCacheTest, WriteThroughNeverAllocatesNorDirties) {
  auto cache = make_cache(cache_spec(128, 128, 0), WritePolicy::kWriteThroughNoAllocate, "l1");
  const CacheAccessResult store_miss = cache->access(0, true);
  EXPECT_FALSE(store_miss.hit);
  EXPECT_EQ(store_miss.frame, -1);
  EXPECT_FALSE(cache->access(0, false).hit);          // the store did not allocate
  EXPECT_TRUE(cache->access(0, true).hit);            // store hit updates the line
  EXPECT_FALSE(cache->access(128, false).writeback);  // the victim is clean
  EXPECT_EQ(cache->stats().value("write_hits"), 1);
  EXPECT_EQ(cache->stats().value("write_misses"), 1);
}

// Plain reference: one LRU list per set, most recent at the front.
class ReferenceLru {
 public:
  ReferenceLru(std::uint64_t sets, std::size_t ways) : sets_(sets), ways_(ways), lists_(sets) {}
  // True on a hit; otherwise `evicted` is the line the access replaced, if any.
  bool access(std::uint64_t line, std::optional<std::uint64_t>& evicted) {
    evicted.reset();
    auto& list = lists_[line % sets_];
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (*it == line) {
        list.erase(it);
        list.push_front(line);
        return true;
      }
    }
    list.push_front(line);
    if (list.size() > ways_) {
      evicted = list.back();
      list.pop_back();
    }
    return false;
  }

 private:
  std::uint64_t sets_;
  std::size_t ways_;
  std::vector<std::list<std::uint64_t>> lists_;
};

struct Geometry {
  std::int64_t sets;
  int ways;         // as in the spec: 0 = fully associative
  int stored_ways;  // ways the reference keeps
  std::uint64_t distinct_lines;
};

class CacheReferenceTest : public ::testing::TestWithParam<Geometry> {};

TEST_P(CacheReferenceTest, MatchesAReferenceLruOnAPseudoRandomStream) {
  const Geometry g = GetParam();
  const std::int64_t lines = g.sets * g.stored_ways;
  auto cache =
      make_cache(cache_spec(lines * 64, 64, g.ways), WritePolicy::kWriteBackAllocate, "l2");
  ReferenceLru reference(static_cast<std::uint64_t>(g.sets),
                         static_cast<std::size_t>(g.stored_ways));
  // Frames: a line keeps its frame while it stays; a new line takes the next unused frame,
  // or the frame of the line it replaced.
  std::map<std::uint64_t, std::int64_t> frame_of;
  std::int64_t frames_used = 0;
  std::uint64_t state = 12345;
  int hits = 0;
  for (int i = 0; i < 20000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::uint64_t line = (state >> 33) % g.distinct_lines;
    std::optional<std::uint64_t> evicted;
    const bool expected = reference.access(line, evicted);
    const CacheAccessResult got = cache->access(line * 64 + (state & 63), false);
    ASSERT_EQ(got.hit, expected) << "access " << i;
    std::int64_t frame = frames_used;
    if (expected) {
      frame = frame_of.at(line);
    } else if (evicted) {
      frame = frame_of.at(*evicted);
      frame_of.erase(*evicted);
    } else {
      ++frames_used;
    }
    frame_of[line] = frame;
    ASSERT_EQ(got.frame, frame) << "access " << i;
    hits += expected ? 1 : 0;
  }
  EXPECT_EQ(cache->stats().value("read_hits"), hits);
  EXPECT_EQ(frames_used, std::min<std::int64_t>(lines, static_cast<std::int64_t>(g.distinct_lines)));
  EXPECT_GT(hits, 0);
  EXPECT_LT(hits, 20000);
}

INSTANTIATE_TEST_SUITE_P(Geometries, CacheReferenceTest,
                         ::testing::Values(Geometry{16, 4, 4, 200},     // 64 lines, 4-way
                                           Geometry{1, 0, 64, 100},     // fully associative
                                           Geometry{64, 1, 1, 150},     // direct mapped
                                           Geometry{3, 5, 5, 30},       // 3 sets (not 2^k)
                                           Geometry{1, 0, 512, 700}));  // large, many evictions

TEST(SetAssociativeCacheTest, RejectsInconsistentGeometry) {
  const auto make = [](std::int64_t size, int line, int ways) {
    return make_cache(cache_spec(size, line, ways), WritePolicy::kWriteBackAllocate, "memory.l1");
  };
  EXPECT_THROW(make(1000, 128, 0), InputError);  // not a multiple of the line
  EXPECT_THROW(make(1024, 0, 0), InputError);
  EXPECT_THROW(make(0, 128, 0), InputError);
  EXPECT_THROW(make(1024, 128, 3), InputError);   // 8 lines are not 3-way sets
  EXPECT_THROW(make(1024, 128, 16), InputError);  // more ways than lines
  EXPECT_THROW(make(1024, 128, -1), InputError);
  try {
    make(1000, 128, 0);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("memory.l1"), std::string::npos);
  }
}

}  // namespace
}  // namespace marlin::timing
