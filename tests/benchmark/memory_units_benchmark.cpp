// Google Benchmark of the timing model's per-access units, called once per memory op of a
// replay: the threadgroup-memory bank model and the device-access coalescer, with the m4max
// profile's geometry (32 banks of 4 bytes, 128-byte lines), of the reuse distances of a
// sampled run's L2 accesses, and of building the SLC's cache model for a short replay.
// items = accesses.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "model/device/profile_loader.h"
#include "model/timing/cache.h"
#include "model/timing/coalescer.h"
#include "model/timing/reuse_distance.h"
#include "model/timing/threadgroup_memory_banks.h"

namespace {

using namespace marlin;

// A simdgroup_load of an 8x8 half matrix from a row-major tile of `stride` halves: eight
// 16-byte rows (the fused kernel's A fragments, stride 32, and B stage, stride 8).
std::vector<timing::LaneAccess> matrix_rows(std::uint64_t stride_halves) {
  std::vector<timing::LaneAccess> rows;
  for (std::uint64_t r = 0; r < 8; ++r) rows.push_back({r * stride_halves * 2, 16});
  return rows;
}

void BM_BankModelMatrixRows(benchmark::State& state) {
  const model::DeviceSpec device = model::load_device("m4max");
  const auto banks = timing::make_threadgroup_memory_banks(device.threadgroup_memory);
  const std::vector<timing::LaneAccess> rows = matrix_rows(32);
  for (auto _ : state) {
    benchmark::DoNotOptimize(banks->access(0xFF, rows).busy_cycles);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BankModelMatrixRows);

// 32 lanes storing consecutive halves: one 64-byte run, 16 words.
void BM_BankModelHalfPerLane(benchmark::State& state) {
  const model::DeviceSpec device = model::load_device("m4max");
  const auto banks = timing::make_threadgroup_memory_banks(device.threadgroup_memory);
  std::vector<timing::LaneAccess> lanes;
  for (std::uint64_t l = 0; l < 32; ++l) lanes.push_back({l * 2, 2});
  for (auto _ : state) {
    benchmark::DoNotOptimize(banks->access(0xFFFFFFFFu, lanes).busy_cycles);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BankModelHalfPerLane);

// Lanes 0-7 loading one packed word each from consecutive columns (the fused kernel's
// weight loads): 32 bytes, one line.
void BM_CoalescerWordPerLane(benchmark::State& state) {
  const model::DeviceSpec device = model::load_device("m4max");
  timing::Coalescer coalescer(device.memory.l1);
  std::vector<timing::LaneAccess> lanes;
  for (std::uint64_t l = 0; l < 8; ++l) lanes.push_back({4096 + l * 4, 4});
  for (auto _ : state) {
    benchmark::DoNotOptimize(coalescer.coalesce(0xFF, lanes).size());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CoalescerWordPerLane);

// What each replay of a sampled run pays for the SLC: building m4max's 48 MiB model and
// filling 4,096 lines of it (a slice's footprint is a few thousand lines), then reading them.
void BM_SlcBuildAndCorner(benchmark::State& state) {
  const model::DeviceSpec device = model::load_device("m4max");
  constexpr std::uint64_t kLines = 4096;
  for (auto _ : state) {
    const auto slc = timing::make_cache(device.memory.slc, timing::WritePolicy::kWriteBackAllocate,
                                        "memory.slc");
    const auto line = static_cast<std::uint64_t>(slc->line_bytes());
    for (std::uint64_t n = 0; n < kLines; ++n) slc->access(n * line, false);
    for (std::uint64_t n = 0; n < kLines; ++n) {
      benchmark::DoNotOptimize(slc->access(n * line, false).hit);
    }
  }
  state.SetItemsProcessed(state.iterations() * 2 * static_cast<std::int64_t>(kLines));
}
BENCHMARK(BM_SlcBuildAndCorner)->Unit(benchmark::kMillisecond);

}  // namespace

// Reuse distances of an L2 access stream shaped like a GEMM sample's: 64 threadgroups each
// reading, per K step, 40 lines of its own and 8 lines shared with the 7 others of its row,
// for 64 K steps: 196,608 accesses to 167,936 lines. items = accesses.
void BM_ReuseDistances(benchmark::State& state) {
  std::vector<std::uint64_t> lines;
  for (std::uint64_t step = 0; step < 64; ++step) {
    for (std::uint64_t tg = 0; tg < 64; ++tg) {
      for (std::uint64_t i = 0; i < 40; ++i) lines.push_back((step * 64 + tg) * 64 + i);
      for (std::uint64_t i = 0; i < 8; ++i) {
        lines.push_back((std::uint64_t{1} << 30) + (step * 8 + tg / 8) * 8 + i);
      }
    }
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(timing::reuse_distances(lines).first_accesses);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(lines.size()));
}
BENCHMARK(BM_ReuseDistances)->Unit(benchmark::kMillisecond);
