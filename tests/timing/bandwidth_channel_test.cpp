#include "model/timing/bandwidth_channel.h"

#include <gtest/gtest.h>

#include <array>

#include "model/common/input_error.h"

namespace marlin::timing {
namespace {

TEST(TransferRateTest, ReducesBytesPerSecondOverTheClock) {
  // 546e9 / 1.578e9 = 546000 / 1578 = (divide by 6) 91000 / 263; 263 is prime.
  const TransferRate dram = TransferRate::from_bytes_per_second(546e9, 1.578e9, "dram");
  EXPECT_EQ(dram.bytes, 91000);
  EXPECT_EQ(dram.cycles, 263);
  const TransferRate even = TransferRate::from_bytes_per_second(128e9, 1e9, "dram");
  EXPECT_EQ(even.bytes, 128);
  EXPECT_EQ(even.cycles, 1);
}

TEST(TransferRateTest, FromBytesPerCycle) {
  const TransferRate whole = TransferRate::from_bytes_per_cycle(32.0, "link");
  EXPECT_EQ(whole.bytes, 32);
  EXPECT_EQ(whole.cycles, 1);
  const TransferRate half = TransferRate::from_bytes_per_cycle(21.5, "link");
  EXPECT_EQ(half.bytes, 43);
  EXPECT_EQ(half.cycles, 2);
}

TEST(TransferRateTest, RejectsNonPositiveRates) {
  EXPECT_THROW(TransferRate::from_bytes_per_second(0, 1e9, "dram"), InputError);
  EXPECT_THROW(TransferRate::from_bytes_per_second(1e9, -1, "dram"), InputError);
  EXPECT_THROW(TransferRate::from_bytes_per_cycle(0, "link"), InputError);
  EXPECT_THROW(TransferRate::from_bytes_per_cycle(1e300, "link"), InputError);
}

TEST(BandwidthChannelTest, IsolatedRequestPaysTransferPlusLatency) {
  BandwidthChannel channel(TransferRate{64, 1}, Cycles(100));
  // 128 bytes at 64 B/cycle = 2 cycles, then 100 cycles of latency.
  EXPECT_EQ(channel.request(Cycles(10), 128), Cycles(10 + 2 + 100));
  // 1 byte takes 1/64 cycle, rounded up to the next whole cycle.
  EXPECT_EQ(channel.request(Cycles(500), 1), Cycles(500 + 1 + 100));
}

TEST(BandwidthChannelTest, BackToBackRequestsQueueInArrivalOrder) {
  BandwidthChannel channel(TransferRate{64, 1}, Cycles(100));
  // Five 128-byte requests at cycle 0: transfers end at 2, 4, 6, 8, 10.
  for (std::int64_t k = 1; k <= 5; ++k) {
    EXPECT_EQ(channel.request(Cycles(0), 128), Cycles(2 * k + 100)) << "request " << k;
  }
  EXPECT_EQ(channel.idle_from(), Cycles(10));
  // Issued before the queue drains: starts at 10.
  EXPECT_EQ(channel.request(Cycles(9), 64), Cycles(11 + 100));
  // Issued after it drained: starts at its own cycle.
  EXPECT_EQ(channel.request(Cycles(50), 128), Cycles(52 + 100));
  // Arrival order, not issue order: an earlier issue cycle still waits behind.
  EXPECT_EQ(channel.request(Cycles(0), 128), Cycles(54 + 100));

  EXPECT_EQ(channel.stats().value("requests"), 8);
  EXPECT_EQ(channel.stats().value("bytes"), 5 * 128 + 64 + 128 + 128);
  // Waits: requests 2..5 waited 2, 4, 6, 8; the one at 9 waited 1; the one at 0 waited 52.
  EXPECT_EQ(channel.stats().value("queued_requests"), 6);
  EXPECT_EQ(channel.stats().value("queue_cycles"), 2 + 4 + 6 + 8 + 1 + 52);
}

TEST(BandwidthChannelTest, DramBoundStreamWithFractionalRate) {
  // M4 Max-like DRAM: 546 GB/s at 1.578 GHz = 91000/263 bytes per cycle, latency 480.
  BandwidthChannel dram(TransferRate::from_bytes_per_second(546e9, 1.578e9, "dram"), Cycles(480));
  // A 128-byte line takes 128 * 263 / 91000 = 33664 / 91000 cycles (about 0.37). Request k of
  // a stream issued at cycle 0 ends at k * 33664 / 91000:
  //   k=1: 0.37 -> 1, k=2: 0.74 -> 1, k=3: 1.11 -> 2, k=4: 1.48 -> 2, k=5: 1.85 -> 2,
  //   k=6: 2.22 -> 3.
  const std::array<std::int64_t, 6> expected_end = {1, 1, 2, 2, 2, 3};
  for (std::int64_t end : expected_end) {
    EXPECT_EQ(dram.request(Cycles(0), 128), Cycles(end + 480));
  }
  // 994 more (1000 in all): 1000 * 33664 = 33,664,000; 91000 * 369 = 33,579,000 leaves
  // 85,000 > 0, so the stream ends in cycle 370. Rounding each line up would give 1000.
  Cycles last;
  for (int k = 7; k <= 1000; ++k) {
    last = dram.request(Cycles(0), 128);
  }
  EXPECT_EQ(last, Cycles(370 + 480));
  EXPECT_EQ(dram.idle_from(), Cycles(370));
  // 128,000 bytes over 740 cycles: 128000 * 263 / 91000 / 740 = 0.49990...
  EXPECT_NEAR(dram.utilization(Cycles(740)), 128000.0 * 263 / 91000 / 740, 1e-12);
}

TEST(BandwidthChannelTest, FractionCarriesAcrossAnIdleGap) {
  BandwidthChannel channel(TransferRate{3, 2}, Cycles(0));  // 1.5 bytes per cycle
  // 3 bytes = 2 cycles exactly; 1 byte = 2/3 cycle.
  EXPECT_EQ(channel.request(Cycles(0), 1), Cycles(1));  // ends at 0.67
  EXPECT_EQ(channel.request(Cycles(0), 1), Cycles(2));  // ends at 1.33
  // Issued at 1 < 1.33: starts at 1.33, ends at 2.0.
  EXPECT_EQ(channel.request(Cycles(1), 1), Cycles(2));
  // Issued at 2 = end of the previous transfer: starts at 2, ends at 4.
  EXPECT_EQ(channel.request(Cycles(2), 3), Cycles(4));
  EXPECT_EQ(channel.stats().value("queued_requests"), 2);
}

TEST(BandwidthChannelTest, UtilizationOfAnEmptyWindow) {
  BandwidthChannel channel(TransferRate{64, 1}, Cycles(0));
  EXPECT_EQ(channel.utilization(Cycles(0)), 0.0);
  channel.request(Cycles(0), 640);  // 10 cycles of transfer
  EXPECT_DOUBLE_EQ(channel.utilization(Cycles(20)), 0.5);
}

}  // namespace
}  // namespace marlin::timing
