// A launch with a trace sink hands every threadgroup's traces over once, as the launch without
// one would have recorded them, and tells the sink when it stops early.
#include "sim/runtime/trace_sink.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "model/common/input_error.h"
#include "sim/runtime/launch.h"
#include "tests/sim/sim_test_util.h"

namespace marlin::sim {
namespace {

using ::testing::HasSubstr;

// Keeps what it is given; put() of `fail_at` throws. With `give_back` it keeps copies and
// returns the traces it was given, contents and all, each ops vector grown to hold at least
// `give_back_ops` ops, for the engine to build its next traces in.
class RecordingTraceSink final : public ThreadgroupTraceSink {
 public:
  explicit RecordingTraceSink(std::int64_t fail_at = -1, bool give_back = false,
                              std::size_t give_back_ops = 0)
      : fail_at_(fail_at), give_back_(give_back), give_back_ops_(give_back_ops) {}
  void begin_launch(const LaunchHeader& header) override {
    std::lock_guard lock(mutex_);
    headers.push_back(header);
  }
  std::vector<SimdgroupTrace> put(std::uint32_t threadgroup,
                                  std::vector<SimdgroupTrace> traces) override {
    if (threadgroup == fail_at_) throw std::runtime_error("sink full");
    std::lock_guard lock(mutex_);
    ++puts[threadgroup];
    for (const SimdgroupTrace& t : traces) ops_capacity_of[threadgroup].push_back(t.ops.capacity());
    if (!give_back_) {
      traces_of[threadgroup] = std::move(traces);
      return {};
    }
    traces_of[threadgroup] = traces;
    for (SimdgroupTrace& t : traces) t.ops.reserve(give_back_ops_);
    return traces;
  }
  void abort() noexcept override {
    std::lock_guard lock(mutex_);
    ++aborts;
  }

  std::vector<LaunchHeader> headers;
  std::map<std::uint32_t, int> puts;
  std::map<std::uint32_t, std::vector<SimdgroupTrace>> traces_of;
  std::map<std::uint32_t, std::vector<std::size_t>> ops_capacity_of;  // as put() received them
  int aborts = 0;

 private:
  std::int64_t fail_at_;
  bool give_back_;
  std::size_t give_back_ops_;
  std::mutex mutex_;
};

struct Axpy {
  std::vector<float> x = std::vector<float>(4096, 1.0f);
  std::vector<float> y = std::vector<float>(4096, 2.0f);
  struct {
    std::uint32_t n = 4096;
    float alpha = 3.0f;
  } params;
  LaunchSpec spec() {
    LaunchSpec s = testing::spec("test_axpy_grid", {16, 4, 1}, {64, 1, 1});
    s.buffers[0] = testing::buffer(x);
    s.buffers[1] = testing::buffer(y);
    s.buffers[2] = testing::buffer(params);
    s.options.host_threads = 2;
    return s;
  }
};

TEST(TraceSinkTest, ReceivesEveryThreadgroupOnceAsTheLaunchWouldRecordIt) {
  Axpy whole_run;
  const LaunchResult whole = launch(whole_run.spec());
  Axpy sunk_run;
  RecordingTraceSink sink;
  LaunchSpec s = sunk_run.spec();
  s.options.trace_sink = &sink;
  const LaunchResult sunk = launch(s);

  EXPECT_TRUE(sunk.trace.simdgroups.empty());
  EXPECT_EQ(sunk.trace.kernel, whole.trace.kernel);
  EXPECT_EQ(whole_run.y, std::vector<float>(4096, 2.0f + 3.0f * 1.0f));
  EXPECT_EQ(sunk_run.y, whole_run.y);
  ASSERT_EQ(sink.headers.size(), 1u);
  const LaunchHeader& h = sink.headers[0];
  EXPECT_EQ(h.kernel, "test_axpy_grid");
  EXPECT_EQ(h.threadgroups_per_grid, (std::array<std::uint32_t, 3>{16, 4, 1}));
  EXPECT_EQ(h.threads_per_threadgroup, (std::array<std::uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ(h.threadgroup_memory_bytes, whole.trace.threadgroup_memory_bytes);
  ASSERT_EQ(sink.puts.size(), 64u);
  std::vector<SimdgroupTrace> joined;
  for (const auto& [threadgroup, count] : sink.puts) {
    EXPECT_EQ(count, 1) << threadgroup;
    const std::vector<SimdgroupTrace>& traces = sink.traces_of[threadgroup];
    ASSERT_EQ(traces.size(), 2u) << threadgroup;  // 64 threads: two simdgroups, in order
    for (std::uint32_t s2 = 0; s2 < 2; ++s2) {
      EXPECT_EQ(traces[s2].simdgroup, s2);
      EXPECT_EQ(traces[s2].threadgroup,
                (std::array<std::uint32_t, 3>{threadgroup % 16, threadgroup / 16, 0}));
    }
    joined.insert(joined.end(), traces.begin(), traces.end());
  }
  EXPECT_EQ(joined, whole.trace.simdgroups);
  EXPECT_EQ(sink.aborts, 0);
}

// Traces built in the vectors a sink gave back, which still hold the previous threadgroup's
// ops, are those the launch would record.
TEST(TraceSinkTest, TracesBuiltInGivenBackVectorsAreAsTheLaunchWouldRecordThem) {
  Axpy whole_run;
  const LaunchResult whole = launch(whole_run.spec());
  Axpy sunk_run;
  RecordingTraceSink sink(-1, /*give_back=*/true);
  LaunchSpec s = sunk_run.spec();
  s.options.trace_sink = &sink;
  launch(s);
  ASSERT_EQ(sink.traces_of.size(), 64u);
  std::vector<SimdgroupTrace> joined;
  for (const auto& [threadgroup, traces] : sink.traces_of) {
    joined.insert(joined.end(), traces.begin(), traces.end());
  }
  EXPECT_EQ(joined, whole.trace.simdgroups);
  EXPECT_EQ(sunk_run.y, whole_run.y);
}

// On one host thread every threadgroup after the first is built in the vectors the sink gave
// back for the one before: their capacity, far above what a threadgroup needs, arrives again.
TEST(TraceSinkTest, AWorkerBuildsItsNextThreadgroupInTheVectorsGivenBack) {
  constexpr std::size_t kGivenBack = 100000;
  Axpy run;
  RecordingTraceSink sink(-1, /*give_back=*/true, kGivenBack);
  LaunchSpec s = run.spec();
  s.options.host_threads = 1;
  s.options.trace_sink = &sink;
  launch(s);
  ASSERT_EQ(sink.ops_capacity_of.size(), 64u);
  for (const auto& [threadgroup, capacities] : sink.ops_capacity_of) {
    for (const std::size_t capacity : capacities) {
      if (threadgroup == 0) {
        EXPECT_LT(capacity, kGivenBack);
      } else {
        EXPECT_GE(capacity, kGivenBack) << threadgroup;
      }
    }
  }
}

TEST(TraceSinkTest, AFailedPutStopsTheLaunchAndAbortsTheSink) {
  Axpy run;
  RecordingTraceSink sink(/*fail_at=*/5);
  LaunchSpec s = run.spec();
  s.options.trace_sink = &sink;
  EXPECT_THROW(
      {
        try {
          launch(s);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "sink full");
          throw;
        }
      },
      std::runtime_error);
  EXPECT_GE(sink.aborts, 1);
  EXPECT_FALSE(sink.puts.contains(5));
  EXPECT_LT(sink.puts.size(), 64u);
}

TEST(TraceSinkTest, NeedsTracingAndTheWholeGrid) {
  Axpy run;
  RecordingTraceSink sink;
  LaunchSpec s = run.spec();
  s.options.trace_sink = &sink;
  s.options.trace = false;
  EXPECT_THROW(launch(s), InputError);
  s.options.trace = true;
  s.options.slice = ThreadgroupSlice{.x = 2, .y = 1, .count = 2};
  try {
    launch(s);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("a trace sink needs tracing on and no slice"));
  }
  EXPECT_TRUE(sink.headers.empty());
}

}  // namespace
}  // namespace marlin::sim
