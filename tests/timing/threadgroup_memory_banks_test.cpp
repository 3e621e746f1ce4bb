#include "model/timing/threadgroup_memory_banks.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <span>
#include <utility>

#include "model/common/input_error.h"
#include "model/timing/classic_bank_model.h"

namespace marlin::timing {
namespace {

constexpr LaneMask kAllLanes = 0xFFFFFFFFULL;

// 32 banks of 4-byte words. With 128 bytes per cycle the data path never limits a 32-lane
// 4-byte access, so busy_cycles shows the bank passes alone.
model::ThreadgroupMemorySpec spec_with_bandwidth(int bytes_per_cycle) {
  model::ThreadgroupMemorySpec spec;
  spec.banks = 32;
  spec.bank_width_bytes = 4;
  spec.bank_rule = model::BankRule::kClassic;
  spec.bytes_per_cycle = bytes_per_cycle;
  return spec;
}

std::array<LaneAccess, 32> strided(std::uint64_t stride_bytes, std::uint32_t bytes) {
  std::array<LaneAccess, 32> lanes{};
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    lanes[i] = LaneAccess{i * stride_bytes, bytes};
  }
  return lanes;
}

TEST(ClassicBankModelTest, StrideOneWordIsConflictFree) {
  auto banks = make_threadgroup_memory_banks(spec_with_bandwidth(128));
  // Lane i reads word i -> bank i: every bank once.
  const BankAccessCost cost = banks->access(kAllLanes, strided(4, 4));
  EXPECT_EQ(cost.wavefronts, 1);
  EXPECT_EQ(cost.bytes, 128);
  EXPECT_EQ(cost.bandwidth_cycles, Cycles(1));  // 128 B / 128 B per cycle
  EXPECT_EQ(cost.busy_cycles, Cycles(1));
}

TEST(ClassicBankModelTest, StrideTwoWordsIsTwoWay) {
  auto banks = make_threadgroup_memory_banks(spec_with_bandwidth(128));
  // Lane i reads word 2i -> bank 2i mod 32: lanes i and i+16 share bank 2i with words 2i and
  // 2i+32, so each even bank has 2 distinct words.
  const BankAccessCost cost = banks->access(kAllLanes, strided(8, 4));
  EXPECT_EQ(cost.wavefronts, 2);
  EXPECT_EQ(cost.busy_cycles, Cycles(2));
}

TEST(ClassicBankModelTest, StrideThirtyTwoWordsIsThirtyTwoWay) {
  auto banks = make_threadgroup_memory_banks(spec_with_bandwidth(128));
  // Lane i reads word 32i -> bank 0 for every lane, 32 distinct words.
  const BankAccessCost cost = banks->access(kAllLanes, strided(128, 4));
  EXPECT_EQ(cost.wavefronts, 32);
  EXPECT_EQ(cost.busy_cycles, Cycles(32));
  EXPECT_EQ(banks->stats().value("conflict_passes"), 31);
}

TEST(ClassicBankModelTest, OddStrideIsConflictFree) {
  auto banks = make_threadgroup_memory_banks(spec_with_bandwidth(128));
  // Stride 3 words: 3i mod 32 is a permutation of the banks since gcd(3, 32) = 1.
  EXPECT_EQ(banks->access(kAllLanes, strided(12, 4)).wavefronts, 1);
}

TEST(ClassicBankModelTest, SameWordIsBroadcast) {
  auto banks = make_threadgroup_memory_banks(spec_with_bandwidth(64));
  std::array<LaneAccess, 32> lanes{};
  lanes.fill(LaneAccess{12, 4});
  const BankAccessCost cost = banks->access(kAllLanes, lanes);
  EXPECT_EQ(cost.wavefronts, 1);
  EXPECT_EQ(cost.bytes, 128);                   // every lane still receives 4 bytes
  EXPECT_EQ(cost.bandwidth_cycles, Cycles(2));  // 128 B / 64 B per cycle
  EXPECT_EQ(cost.busy_cycles, Cycles(2));
}

TEST(ClassicBankModelTest, TwoWordsInOneBankWithBroadcastIsTwoWay) {
  auto banks = make_threadgroup_memory_banks(spec_with_bandwidth(128));
  // Even lanes read word 0, odd lanes word 32: both in bank 0.
  std::array<LaneAccess, 32> lanes{};
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    lanes[i] = LaneAccess{(i % 2) * 128, 4};
  }
  EXPECT_EQ(banks->access(kAllLanes, lanes).wavefronts, 2);
}

TEST(ClassicBankModelTest, WideLanesCoverSeveralWords) {
  auto banks = make_threadgroup_memory_banks(spec_with_bandwidth(64));
  // 8-byte lanes at stride 8: words 0..63, two per bank. 256 bytes at 64 B/cycle = 4 cycles,
  // which is more than the 2 passes.
  const BankAccessCost cost = banks->access(kAllLanes, strided(8, 8));
  EXPECT_EQ(cost.wavefronts, 2);
  EXPECT_EQ(cost.bytes, 256);
  EXPECT_EQ(cost.bandwidth_cycles, Cycles(4));
  EXPECT_EQ(cost.busy_cycles, Cycles(4));
}

TEST(ClassicBankModelTest, UnalignedLaneStraddlesTwoWords) {
  auto banks = make_threadgroup_memory_banks(spec_with_bandwidth(128));
  // Lane 0: bytes 2..5 = words 0 and 1. Lane 1: word 32 (bank 0) -> bank 0 has words 0, 32.
  const std::array<LaneAccess, 2> lanes{LaneAccess{2, 4}, LaneAccess{128, 4}};
  EXPECT_EQ(banks->access(0x3, lanes).wavefronts, 2);
  EXPECT_EQ(banks->access(0x1, lanes).wavefronts, 1);
}

TEST(ClassicBankModelTest, PartialMaskAndEmptyMask) {
  auto banks = make_threadgroup_memory_banks(spec_with_bandwidth(64));
  // Stride 32 words, but only lanes 0..3 active: 4 distinct words in bank 0; 16 bytes -> 1 cycle.
  const BankAccessCost cost = banks->access(0xF, strided(128, 4));
  EXPECT_EQ(cost.wavefronts, 4);
  EXPECT_EQ(cost.bandwidth_cycles, Cycles(1));
  EXPECT_EQ(cost.busy_cycles, Cycles(4));
  const BankAccessCost none = banks->access(0, strided(128, 4));
  EXPECT_EQ(none.wavefronts, 0);
  EXPECT_EQ(none.busy_cycles, Cycles(0));
  EXPECT_EQ(banks->stats().value("accesses"), 1);
  EXPECT_EQ(banks->stats().value("busy_cycles"), 4);
  EXPECT_EQ(banks->stats().value("bytes"), 16);
}

TEST(ClassicBankModelTest, OtherBankGeometry) {
  model::ThreadgroupMemorySpec spec = spec_with_bandwidth(128);
  spec.banks = 16;
  spec.bank_width_bytes = 8;
  auto banks = make_threadgroup_memory_banks(spec);
  // 4-byte lanes at stride 4: lanes 2k and 2k+1 share 8-byte word k (broadcast within the
  // word); words 0..15 fill banks 0..15 once.
  EXPECT_EQ(banks->access(kAllLanes, strided(4, 4)).wavefronts, 1);
  // Stride 8 bytes: words 0..31 over 16 banks: 2 per bank.
  EXPECT_EQ(banks->access(kAllLanes, strided(8, 4)).wavefronts, 2);
}

TEST(ClassicBankModelTest, GeometryThatIsNotAPowerOfTwo) {
  model::ThreadgroupMemorySpec spec = spec_with_bandwidth(128);
  spec.banks = 24;
  spec.bank_width_bytes = 12;
  auto banks = make_threadgroup_memory_banks(spec);
  // 4-byte lanes at stride 4: lanes 3k..3k+2 share 12-byte word k, words 0..10 in banks
  // 0..10 (lane 31 reads word 10 alone): one pass.
  EXPECT_EQ(banks->access(kAllLanes, strided(4, 4)).wavefronts, 1);
  // Stride 12 bytes: words 0..31 over 24 banks; words 24..31 share banks 0..7 with 0..7.
  EXPECT_EQ(banks->access(kAllLanes, strided(12, 4)).wavefronts, 2);
  // Stride 24 * 12 bytes: every lane in bank 0, 32 distinct words.
  EXPECT_EQ(banks->access(kAllLanes, strided(24 * 12, 4)).wavefronts, 32);
  // Lane i reads bytes 10 i .. 10 i + 7: together bytes 0..317 with 2-byte gaps, so every
  // word 0..26 (byte 317 is in word 26); words 24..26 share banks 0..2 with words 0..2.
  EXPECT_EQ(banks->access(kAllLanes, strided(10, 8)).wavefronts, 2);
}

// access_affine() remembers costs by pattern; it must give what access() gives for the same
// lanes, and count the same statistics. The reference builds every lane by hand (lane i at
// first + i * stride, modulo 2^32) and calls access() on a second model. The patterns repeat
// at shifted bases (the remembered path), descend, wrap around 2^32, have zero bytes or 64
// lanes, on the m4max geometry and on one that is not a power of two.
TEST(ClassicBankModelTest, AffineAccessesCostWhatTheirLanesCost) {
  for (const auto& [banks_count, width] : {std::pair{32, 4}, std::pair{24, 12}}) {
    model::ThreadgroupMemorySpec spec = spec_with_bandwidth(16);
    spec.banks = banks_count;
    spec.bank_width_bytes = width;
    ClassicBankModel remembered(spec);
    ClassicBankModel reference(spec);
    const auto period = static_cast<std::uint32_t>(banks_count * width);
    const std::uint32_t strides[] = {0, 2, 4, 6, 8, 12, 16, 64, 128, 4u - 8u, 0xFFFFFFFEu};
    const std::uint32_t sizes[] = {0, 1, 2, 4, 8, 16};
    for (const std::uint32_t stride : strides) {
      for (const std::uint32_t bytes : sizes) {
        for (const std::uint32_t lanes : {1u, 8u, 32u, 64u}) {
          for (const std::uint32_t base : {0u, 2u, 6u, 0xFFFFFFF0u}) {
            for (std::uint32_t shift = 0; shift < 3; ++shift) {
              const std::uint32_t first = base + shift * period;
              std::array<LaneAccess, 64> lane_list{};
              LaneMask mask = 0;
              for (std::uint32_t i = 0; i < lanes; ++i) {
                lane_list[i] = LaneAccess{std::uint32_t(first + i * stride), bytes};
                if (bytes > 0) mask |= LaneMask{1} << i;
              }
              const BankAccessCost want =
                  reference.access(mask, std::span<const LaneAccess>(lane_list.data(), lanes));
              const BankAccessCost got = remembered.access_affine(first, stride, bytes, lanes);
              ASSERT_EQ(got.wavefronts, want.wavefronts)
                  << banks_count << "x" << width << " first " << first << " stride " << stride
                  << " bytes " << bytes << " lanes " << lanes;
              ASSERT_EQ(got.bytes, want.bytes);
              ASSERT_EQ(got.busy_cycles, want.busy_cycles);
              ASSERT_EQ(got.bandwidth_cycles, want.bandwidth_cycles);
            }
          }
        }
      }
    }
    for (const char* name : {"accesses", "wavefronts", "conflict_passes", "bytes", "busy_cycles"}) {
      EXPECT_EQ(remembered.stats().value(name), reference.stats().value(name)) << name;
    }
  }
}

TEST(ClassicBankModelTest, RejectsNonPositiveGeometry) {
  model::ThreadgroupMemorySpec spec = spec_with_bandwidth(64);
  spec.banks = 0;
  EXPECT_THROW(ClassicBankModel{spec}, InputError);
  spec = spec_with_bandwidth(0);
  EXPECT_THROW(make_threadgroup_memory_banks(spec), InputError);
  spec = spec_with_bandwidth(64);
  spec.bank_width_bytes = -4;
  EXPECT_THROW(make_threadgroup_memory_banks(spec), InputError);
}

}  // namespace
}  // namespace marlin::timing
