// Threadgroups by translation: shifts found between two threadgroups' traces, traces built from
// another's, the plan of which threadgroups run, and launches that use it (same traces as a
// launch running every threadgroup, or every threadgroup run when the threadgroups differ).
#include "sim/runtime/trace_translation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using testing::buffer;
using testing::spec;

// One simdgroup: a load of three lanes stored as an affine run (buffer 0, offsets base, base + 4,
// base + 8), a store of two lanes stored one by one (buffer 2), and a threadgroup load.
TraceOp make_op(OpClass op, std::uint16_t count, std::uint32_t mask, std::uint32_t field) {
  TraceOp o;
  o.op = op;
  o.count = count;
  o.mask = mask;
  o.first_access = field;  // ALU: the chain
  return o;
}

SimdgroupTrace sample_trace(std::uint32_t a_base, std::uint32_t c_base) {
  SimdgroupTrace t;
  t.simdgroup = 0;
  t.ops = {make_op(OpClass::kDeviceLoad, 3, 0x7, 0), make_op(OpClass::kAlu, 5, 0x7, 2),
           make_op(OpClass::kDeviceStore, 2, 0x3, 2),
           make_op(OpClass::kThreadgroupLoad, 1, 0x1, 4)};
  t.accesses = {{.offset = a_base, .buffer = 0, .bytes = 4, .lane = kAffineRun},
                {.offset = 4},
                {.offset = c_base, .buffer = 2, .bytes = 2, .lane = 0},
                {.offset = c_base + 2, .buffer = 2, .bytes = 2, .lane = 1},
                {.offset = 64, .buffer = kThreadgroupBufferId, .bytes = 4, .lane = 0}};
  return t;
}

TEST(TraceTranslation, FindsEachBuffersShiftAndTranslatesByIt) {
  const std::vector<SimdgroupTrace> from{sample_trace(100, 1000)};
  const std::vector<SimdgroupTrace> to{sample_trace(164, 1032)};
  const std::optional<BufferShifts> shifts = trace_shift(from, to);
  ASSERT_TRUE(shifts.has_value());
  EXPECT_EQ(shifts->of(0), 64u);
  EXPECT_EQ(shifts->of(2), 32u);
  EXPECT_EQ(shifts->of(kThreadgroupBufferId), 0u);
  EXPECT_EQ(shifts->of(7), 0u);  // absent

  // Three steps along one shift and two along another: buffer 0 moves 3 * 64 + 2 * 10.
  BufferShifts other;
  ASSERT_TRUE(other.set(0, 10));
  ASSERT_TRUE(other.set(2, 1));
  const BufferShifts both = BufferShifts::combine(*shifts, 3, other, 2);
  const std::vector<SimdgroupTrace> moved = translate_traces(from, both, {3, 2, 0});
  std::vector<SimdgroupTrace> expected{sample_trace(100 + 212, 1000 + 98)};
  expected[0].threadgroup = {3, 2, 0};
  EXPECT_EQ(moved, expected);
}

TEST(TraceTranslation, RefusesTracesThatDifferInMoreThanOffsets) {
  const std::vector<SimdgroupTrace> from{sample_trace(100, 1000)};
  // The two stores of buffer 2 move by different amounts.
  std::vector<SimdgroupTrace> uneven{sample_trace(164, 1032)};
  uneven[0].accesses[3].offset += 2;
  EXPECT_FALSE(trace_shift(from, uneven).has_value());
  // The affine run's stride changes.
  std::vector<SimdgroupTrace> stride{sample_trace(164, 1032)};
  stride[0].accesses[1].offset = 8;
  EXPECT_FALSE(trace_shift(from, stride).has_value());
  // Another active mask, another access size, one more op, another simdgroup count.
  std::vector<SimdgroupTrace> mask{sample_trace(100, 1000)};
  mask[0].ops[2].mask = 0x1;
  EXPECT_FALSE(trace_shift(from, mask).has_value());
  std::vector<SimdgroupTrace> bytes{sample_trace(100, 1000)};
  bytes[0].accesses[2].bytes = 4;
  EXPECT_FALSE(trace_shift(from, bytes).has_value());
  std::vector<SimdgroupTrace> longer{sample_trace(100, 1000)};
  longer[0].ops.push_back(longer[0].ops[1]);
  EXPECT_FALSE(trace_shift(from, longer).has_value());
  EXPECT_FALSE(trace_shift(from, {sample_trace(100, 1000), sample_trace(100, 1000)}).has_value());
}

// The positions a plan copies.
std::vector<std::size_t> copied(const TranslationPlan& plan) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < plan.copied.size(); ++i) {
    if (plan.copied[i]) out.push_back(i);
  }
  return out;
}

TEST(TraceTranslation, PlanProbesChecksAndCopiesOnlyWhatIsAlike) {
  // A 4 x 3 grid whose last column is not alike; the slice selects all 12 threadgroups.
  std::vector<std::uint32_t> selected(12);
  for (std::uint32_t i = 0; i < 12; ++i) selected[i] = i;
  const TranslationPlan plan = plan_translation(selected, {4, 3, 1}, {3, 3});
  EXPECT_EQ(plan.base, 0u);
  EXPECT_EQ(plan.along_x, std::optional<std::size_t>(1));
  EXPECT_EQ(plan.along_y, std::optional<std::size_t>(4));
  // Alike: columns 0-2 of rows 0-2. (1, 1) = 5 and the last alike one, (2, 2) = 10, check.
  EXPECT_EQ(plan.checks, (std::vector<std::size_t>{5, 10}));
  EXPECT_EQ(plan.probes, (std::vector<std::size_t>{0, 1, 4, 5, 10}));
  EXPECT_EQ(copied(plan), (std::vector<std::size_t>{2, 6, 8, 9}));  // 3, 7 and 11 run traced

  // Without a neighbour along y (one row selected), only the row's threadgroups are copied.
  const TranslationPlan row = plan_translation({0, 1, 2, 3}, {4, 3, 1}, {4, 3});
  EXPECT_FALSE(row.along_y.has_value());
  EXPECT_EQ(row.checks, (std::vector<std::size_t>{3}));
  EXPECT_EQ(copied(row), (std::vector<std::size_t>{2}));
  // Nothing alike, or nothing left to copy: everything runs traced.
  const TranslationPlan none = plan_translation(selected, {4, 3, 1}, {});
  EXPECT_FALSE(none.copies());
  EXPECT_TRUE(none.probes.empty());
  EXPECT_TRUE(copied(none).empty());
  EXPECT_FALSE(plan_translation({0, 1, 2}, {4, 3, 1}, {4, 3}).copies());
}

struct MatmulParams {
  std::uint32_t m;
  std::uint32_t n;
  std::uint32_t k;
};

struct TiledRun {
  LaunchResult result;
  std::vector<float> c;  // the output, as floats
};

// test_matmul_tiled16 on an m x n x k problem (16 x 16 tiles), with `alike` threadgroups; A and
// B hold small integers that differ from element to element, so each tile's output differs.
TiledRun run_tiled(MatmulParams p, AlikeThreadgroups alike, unsigned host_threads,
                   ThreadgroupTraceSink* sink = nullptr, std::atomic<bool>* workers_done = nullptr,
                   std::atomic<std::uint64_t>* threadgroups_done = nullptr) {
  std::vector<_Float16> a(static_cast<std::size_t>(p.m) * p.k);
  std::vector<_Float16> b(static_cast<std::size_t>(p.k) * p.n);
  std::vector<_Float16> c(static_cast<std::size_t>(p.m) * p.n, static_cast<_Float16>(-1.0f));
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<_Float16>(static_cast<float>(i % 5));
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<_Float16>(static_cast<float>(i % 3));
  LaunchSpec s = spec("test_matmul_tiled16", {(p.n + 15) / 16, (p.m + 15) / 16, 1}, {16, 16, 1});
  s.buffers[0] = BufferArg{a.data(), a.size() * sizeof(_Float16)};
  s.buffers[1] = BufferArg{b.data(), b.size() * sizeof(_Float16)};
  s.buffers[2] = BufferArg{c.data(), c.size() * sizeof(_Float16)};
  s.buffers[3] = buffer(p);
  s.options.alike = alike;
  s.options.host_threads = host_threads;
  s.options.trace_sink = sink;
  if (workers_done != nullptr) s.options.workers_done = [workers_done] { *workers_done = true; };
  s.options.threadgroups_done = threadgroups_done;
  TiledRun run{launch(s), {}};
  for (const _Float16 v : c) run.c.push_back(static_cast<float>(v));
  return run;
}

TEST(TraceTranslation, AlikeThreadgroupsGiveTheTracesOfRunningThemAll) {
  // 4 x 3 tiles with no ragged edge (K is ragged alike in every tile).
  const MatmulParams p{48, 64, 40};
  const TiledRun all = run_tiled(p, {}, 1);
  for (const unsigned threads : {1U, 2U}) {
    const TiledRun translated = run_tiled(p, {4, 3}, threads);
    EXPECT_EQ(translated.result.trace, all.result.trace);
    // Base, its two neighbours and the checks (1, 1) and (3, 2) ran; 7 were translated.
    EXPECT_EQ(translated.result.stats.threadgroups_translated, 7u);
    EXPECT_EQ(translated.result.stats.threadgroups, all.result.stats.threadgroups);
    EXPECT_EQ(translated.result.stats.alu_lane_ops, all.result.stats.alu_lane_ops);
    // Without `execute` the translated threadgroups do not run: tile (2, 0) keeps its -1s.
    EXPECT_EQ(translated.c[2 * 16], -1.0f);
    EXPECT_NE(all.c[2 * 16], -1.0f);
  }
  EXPECT_EQ(all.result.stats.threadgroups_translated, 0u);
}

TEST(TraceTranslation, ExecutedCopiesWriteTheirOutputUntraced) {
  const MatmulParams p{48, 64, 40};
  const TiledRun all = run_tiled(p, {}, 2);
  const TiledRun translated = run_tiled(p, {4, 3, true}, 2);
  EXPECT_EQ(translated.result.trace, all.result.trace);
  EXPECT_EQ(translated.c, all.c);
  EXPECT_EQ(translated.result.stats.threadgroups_translated, 7u);
  // They ran (their output above) uncounted: their ALU counts are the base's.
  EXPECT_EQ(translated.result.stats.alu_lane_ops, all.result.stats.alu_lane_ops);
  EXPECT_EQ(translated.result.stats.threads, all.result.stats.threads);
}

// Keeps the traces it is given, by threadgroup, and how many times each was put.
class KeepingSink final : public ThreadgroupTraceSink {
 public:
  void begin_launch(const LaunchHeader&) override {}
  std::vector<SimdgroupTrace> put(std::uint32_t threadgroup,
                                  std::vector<SimdgroupTrace> traces) override {
    std::lock_guard lock(mutex_);
    ++puts[threadgroup];
    traces_of[threadgroup] = std::move(traces);
    return {};
  }
  void abort() noexcept override {}
  std::vector<SimdgroupTrace> in_threadgroup_order() const {
    std::vector<SimdgroupTrace> out;
    for (const auto& [threadgroup, traces] : traces_of)
      out.insert(out.end(), traces.begin(), traces.end());
    return out;
  }

  std::map<std::uint32_t, int> puts;
  std::map<std::uint32_t, std::vector<SimdgroupTrace>> traces_of;

 private:
  std::mutex mutex_;
};

TEST(TraceTranslation, ASinkGetsTheTracesOfRunningThemAll) {
  // Executed copies, as a streamed full run has them: the probes' traces are dropped after the
  // first pass and rebuilt by translation at their turn, the copies' built at theirs.
  const MatmulParams p{48, 64, 40};
  const TiledRun all = run_tiled(p, {}, 1);
  for (const unsigned threads : {1U, 2U}) {
    KeepingSink sink;
    const TiledRun streamed = run_tiled(p, {4, 3, true}, threads, &sink);
    ASSERT_EQ(sink.puts.size(), 12u);
    for (const auto& [threadgroup, count] : sink.puts) EXPECT_EQ(count, 1) << threadgroup;
    EXPECT_EQ(sink.in_threadgroup_order(), all.result.trace.simdgroups);
    EXPECT_EQ(streamed.c, all.c);
    EXPECT_EQ(streamed.result.stats.threadgroups_translated, 7u);
  }
}

// Holds back the put of threadgroup `held` until every threadgroup of `awaited` was put (or 30
// seconds passed, which it notes), keeping the traces as KeepingSink does.
class WaitingSink final : public ThreadgroupTraceSink {
 public:
  WaitingSink(std::uint32_t held, std::vector<std::uint32_t> awaited)
      : held_(held), awaited_(std::move(awaited)) {}
  void begin_launch(const LaunchHeader&) override {}
  std::vector<SimdgroupTrace> put(std::uint32_t threadgroup,
                                  std::vector<SimdgroupTrace> traces) override {
    std::unique_lock lock(mutex_);
    if (threadgroup == held_) {
      timed_out = !arrived_.wait_for(lock, std::chrono::seconds(30), [&] {
        return std::all_of(awaited_.begin(), awaited_.end(),
                           [&](std::uint32_t t) { return keeping.traces_of.contains(t); });
      });
    }
    keeping.traces_of[threadgroup] = std::move(traces);
    arrived_.notify_all();
    return {};
  }
  void abort() noexcept override {}

  KeepingSink keeping;
  bool timed_out = false;

 private:
  const std::uint32_t held_;
  const std::vector<std::uint32_t> awaited_;
  std::mutex mutex_;
  std::condition_variable arrived_;
};

TEST(TraceTranslation, TranslatedThreadgroupsReachTheSinkAheadOfTheCopies) {
  // 5 x 3 tiles, the first four columns alike: the fifth column's threadgroups (4, 9, 14) run
  // traced and their workers put them; the twelve others are translations, put as soon as the
  // probes agree. The put of threadgroup 4 waits for all twelve, among them 5-8 and 10-13,
  // whose copies its (only) worker runs after it: they must not wait for those runs.
  const MatmulParams p{48, 80, 40};
  const TiledRun all = run_tiled(p, {}, 1);
  WaitingSink sink(4, {0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13});
  const TiledRun streamed = run_tiled(p, {4, 3, true}, 1, &sink);
  EXPECT_FALSE(sink.timed_out);
  EXPECT_EQ(sink.keeping.in_threadgroup_order(), all.result.trace.simdgroups);
  EXPECT_EQ(streamed.c, all.c);
  EXPECT_EQ(streamed.result.stats.threadgroups_translated, 7u);
}

// Holds back the put of threadgroup `held` until `flag` is set (or 30 seconds passed, which
// it notes).
class FlagWaitingSink final : public ThreadgroupTraceSink {
 public:
  FlagWaitingSink(std::uint32_t held, const std::atomic<bool>& flag) : held_(held), flag_(flag) {}
  void begin_launch(const LaunchHeader&) override {}
  std::vector<SimdgroupTrace> put(std::uint32_t threadgroup, std::vector<SimdgroupTrace>) override {
    if (threadgroup != held_) return {};
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!flag_ && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    timed_out = !flag_;
    return {};
  }
  void abort() noexcept override {}

  bool timed_out = false;

 private:
  const std::uint32_t held_;
  const std::atomic<bool>& flag_;
};

TEST(TraceTranslation, WorkersDoneIsSetWhileTranslationsMayStillGoToTheSink) {
  // The put of the last translated threadgroup waits for the flag: it is set once the workers
  // ran every threadgroup, not once every translation was put.
  for (const unsigned threads : {1U, 2U}) {
    std::atomic<bool> done{false};
    FlagWaitingSink sink(11, done);
    run_tiled({48, 64, 40}, {4, 3, true}, threads, &sink, &done);
    EXPECT_FALSE(sink.timed_out) << threads;
    EXPECT_TRUE(done);
  }
}

TEST(TraceTranslation, CountsEachThreadgroupOnceWhenItIsDone) {
  // 4 x 3 tiles: traced, translated and run as copies, with and without a sink (which takes
  // the translations from a thread of the launch's own, not from the workers).
  for (const unsigned threads : {1U, 2U}) {
    for (const AlikeThreadgroups alike : {AlikeThreadgroups{}, AlikeThreadgroups{4, 3, true}}) {
      for (const bool with_sink : {false, true}) {
        KeepingSink sink;
        std::atomic<std::uint64_t> done{0};
        run_tiled({48, 64, 40}, alike, threads, with_sink ? &sink : nullptr, nullptr, &done);
        EXPECT_EQ(done.load(), 12u)
            << threads << " threads, alike " << alike.x << ", sink " << with_sink;
      }
    }
  }
}

// Throws from the put of threadgroup `failing`; counts the aborts.
class FailingSink final : public ThreadgroupTraceSink {
 public:
  explicit FailingSink(std::uint32_t failing) : failing_(failing) {}
  void begin_launch(const LaunchHeader&) override {}
  std::vector<SimdgroupTrace> put(std::uint32_t threadgroup, std::vector<SimdgroupTrace>) override {
    if (threadgroup == failing_) throw std::runtime_error("sink full");
    return {};
  }
  void abort() noexcept override { ++aborts; }

  std::atomic<int> aborts{0};

 private:
  const std::uint32_t failing_;
};

TEST(TraceTranslation, AFailedPutOfATranslationStopsTheLaunch) {
  // Threadgroup 6 of the 4 x 3 tiles is a copy: the thread that puts the translations fails.
  for (const unsigned threads : {1U, 2U}) {
    FailingSink sink(6);
    EXPECT_THROW(
        {
          try {
            run_tiled({48, 64, 40}, {4, 3, true}, threads, &sink);
          } catch (const std::runtime_error& e) {
            EXPECT_STREQ(e.what(), "sink full");
            throw;
          }
        },
        std::runtime_error);
    EXPECT_GE(sink.aborts, 1);
  }
}

TEST(TraceTranslation, ThreadgroupsThatAreNotAlikeAllRun) {
  // 37 x 29: the last row and column of tiles are ragged. Claimed alike anyway, the check at the
  // ragged corner is not the base's translation, so every threadgroup runs.
  const MatmulParams p{37, 29, 45};
  const TiledRun all = run_tiled(p, {}, 1);
  const TiledRun claimed = run_tiled(p, {2, 3}, 2);
  EXPECT_EQ(claimed.result.trace, all.result.trace);
  EXPECT_EQ(claimed.c, all.c);
  EXPECT_EQ(claimed.result.stats.threadgroups_translated, 0u);
  // Declared as they are (the first tile only), nothing is left to copy.
  const TiledRun honest = run_tiled(p, {1, 2}, 2);
  EXPECT_EQ(honest.result.trace, all.result.trace);
  EXPECT_EQ(honest.result.stats.threadgroups_translated, 0u);
}

}  // namespace
}  // namespace marlin::sim
