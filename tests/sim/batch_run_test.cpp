// Copies in batches (batch_run.h): a translated launch's copies run kBatchWidth at a time through
// their kernel's batched build, and a batch that cannot run as one (its members branch apart,
// one of them reads out of bounds) stops, its copies then running one by one, so the launch
// writes and reports what it does without batches.
#include "sim/runtime/batch_run.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

// The 8 x 4 grid of the batch test kernels (kernels/batched.metal), 32 threads each, every
// threadgroup claimed alike: the probes are 0, 1, 8, 9 and 31, the other 27 are copies, which
// one host thread runs as a batch of 16 (2-7, 10-19) and one of 11 (20-30).
struct GridRun {
  LaunchResult result;
  std::vector<std::uint32_t> out;
};

GridRun run_grid(const char* kernel, std::vector<std::uint32_t> in, bool batch,
                 unsigned host_threads) {
  std::vector<std::uint32_t> out(32, 0xDEADBEEFu);
  LaunchSpec s = spec(kernel, {8, 4, 1}, {32, 1, 1});
  s.buffers[0] = buffer(in);
  s.buffers[1] = buffer(out);
  s.options.alike = {8, 4, true};
  s.options.alike.batch = batch;
  s.options.host_threads = host_threads;
  s.options.throw_on_diagnostic = false;
  GridRun run{launch(s), {}};
  run.out = out;
  return run;
}

TEST(BatchRun, CopiesRunInBatchesOfTheBatchWidth) {
  const std::vector<std::uint32_t> in(32, 7);
  const GridRun run = run_grid("test_batch_branch_on_data", in, true, 1);
  EXPECT_EQ(run.result.stats.threadgroups_translated, 27u);
  EXPECT_EQ(run.result.stats.threadgroups_batched, 27u);
  EXPECT_EQ(run.result.stats.batches_stopped, 0u);
  for (std::uint32_t i = 0; i < 32; ++i) EXPECT_EQ(run.out[i], 35u) << i;
}

TEST(BatchRun, MembersThatBranchApartStopTheBatchAndRunAlone) {
  std::vector<std::uint32_t> in(32, 7);
  in[24] = 200;  // a copy of the second batch takes the other branch
  const GridRun alone = run_grid("test_batch_branch_on_data", in, false, 1);
  for (const unsigned threads : {1u, 2u}) {
    const GridRun run = run_grid("test_batch_branch_on_data", in, true, threads);
    EXPECT_EQ(run.out, alone.out) << threads;
    EXPECT_EQ(run.out[24], 600u);
    EXPECT_EQ(run.out[23], 35u);
    EXPECT_EQ(run.result.trace, alone.result.trace);
    EXPECT_EQ(run.result.stats.batches_stopped, 1u);
    EXPECT_TRUE(run.result.diagnostics.empty());
    if (threads == 1) {
      // The first batch ran; the second stopped, and its 11 copies ran one by one.
      EXPECT_EQ(run.result.stats.threadgroups_batched, 16u);
    }
  }
}

TEST(BatchRun, AnOutOfBoundsCopyIsReportedAsWithoutBatches) {
  std::vector<std::uint32_t> in(32);
  for (std::uint32_t i = 0; i < 32; ++i) in[i] = i;
  in[12] = 1000;  // a copy of the first batch reads past the end of `in`
  const GridRun alone = run_grid("test_batch_gather", in, false, 1);
  ASSERT_EQ(alone.result.diagnostics.size(), 1u);
  EXPECT_EQ(alone.result.diagnostics[0].kind, DiagnosticKind::kOutOfBounds);
  const GridRun run = run_grid("test_batch_gather", in, true, 1);
  EXPECT_EQ(run.result.stats.batches_stopped, 1u);
  EXPECT_EQ(run.result.stats.threadgroups_batched, 0u);
  ASSERT_EQ(run.result.diagnostics.size(), 1u);
  EXPECT_EQ(run.result.diagnostics[0].message, alone.result.diagnostics[0].message);
  for (std::uint32_t i = 0; i < 32; ++i) {
    if (i != 12) {
      EXPECT_EQ(run.out[i], i) << i;
    }
  }
}

// A matrix load out of bounds, which a batch performs once every lane has reached it.
TEST(BatchRun, AnOutOfBoundsMatrixLoadIsReportedAsWithoutBatches) {
  std::vector<_Float16> in(32 * 64);
  for (std::size_t e = 0; e < in.size(); ++e)
    in[e] = static_cast<_Float16>(static_cast<float>(e % 97));
  std::vector<std::uint32_t> offsets(32);
  for (std::uint32_t i = 0; i < 32; ++i) offsets[i] = i * 64;
  offsets[20] = 32 * 64 - 8;  // the block's last rows lie past the end of `in`
  const auto run = [&](bool batch) {
    std::vector<_Float16> out(32 * 64, static_cast<_Float16>(-1.0f));
    LaunchSpec s = spec("test_batch_matrix_gather", {8, 4, 1}, {32, 1, 1});
    s.buffers[0] = buffer(in);
    s.buffers[1] = buffer(offsets);
    s.buffers[2] = buffer(out);
    s.options.alike = {8, 4, true};
    s.options.alike.batch = batch;
    s.options.throw_on_diagnostic = false;
    return std::make_pair(launch(s), out);
  };
  const auto [alone, alone_out] = run(false);
  ASSERT_EQ(alone.diagnostics.size(), 1u);
  EXPECT_EQ(alone.diagnostics[0].kind, DiagnosticKind::kOutOfBounds);
  const auto [batched, batched_out] = run(true);
  EXPECT_EQ(batched.stats.batches_stopped, 1u);
  ASSERT_EQ(batched.diagnostics.size(), 1u);
  EXPECT_EQ(batched.diagnostics[0].message, alone.diagnostics[0].message);
  for (std::size_t e = 0; e < alone_out.size(); ++e) {
    if (e / 64 == 20) continue;  // the stopped threadgroup's output, as it stopped
    ASSERT_EQ(std::bit_cast<std::uint16_t>(batched_out[e]),
              std::bit_cast<std::uint16_t>(alone_out[e]))
        << e;
  }
}

// A [[threadgroup(n)]] argument: each member of a batch has its own.
TEST(BatchRun, ThreadgroupArgumentsAreEachMembersOwn) {
  std::vector<std::uint32_t> in(40 * 64);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint32_t>(i * 7 % 31);
  const auto run = [&](bool batch) {
    std::vector<std::uint32_t> out(40, 0);
    LaunchSpec s = spec("test_tg_arg_reduce", {40, 1, 1}, {64, 1, 1});
    s.buffers[0] = buffer(in);
    s.buffers[1] = buffer(out);
    s.threadgroup_lengths[0] = 64 * sizeof(std::uint32_t);
    s.options.alike = {40, 1, true};
    s.options.alike.batch = batch;
    const LaunchResult r = launch(s);
    EXPECT_EQ(r.stats.threadgroups_batched, batch ? r.stats.threadgroups_translated : 0u);
    return out;
  };
  const std::vector<std::uint32_t> alone = run(false);
  for (std::uint32_t t = 0; t < 40; ++t) {
    std::uint32_t sum = 0;
    for (std::uint32_t i = 0; i < 64; ++i) sum += in[t * 64 + i];
    ASSERT_EQ(alone[t], sum) << t;
  }
  EXPECT_EQ(run(true), alone);
}

}  // namespace
}  // namespace marlin::sim
