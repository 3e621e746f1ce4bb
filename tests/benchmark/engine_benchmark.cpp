// Benchmarks of the execution engine: fiber switch, a 1024-thread barrier, one simdgroup
// multiply-accumulate with its bookkeeping, one step of the fused GEMM's inner loop (simdgroup
// barriers around a matrix load), and the functional throughput of a tiled GEMM.
// Figures and how they were measured: docs/engine.md.
#include <benchmark/benchmark.h>

#include <boost/context/fiber.hpp>
#include <vector>

#include "sim/runtime/fiber_stack_pool.h"
#include "sim/runtime/launch.h"

namespace marlin::sim {
namespace {

DeviceLimits limits() { return DeviceLimits{1024, 32768}; }

// Two fibers ping-pong; each iteration is two switches (there and back).
void BM_FiberSwitch(benchmark::State& state) {
  FiberStackPool pool(64 * 1024);
  bool stop = false;
  boost::context::fiber f(std::allocator_arg, PooledStack(&pool),
                          [&stop](boost::context::fiber&& sink) {
                            while (!stop) sink = std::move(sink).resume();
                            return std::move(sink);
                          });
  for (auto _ : state) {
    f = std::move(f).resume();
  }
  stop = true;
  f = std::move(f).resume();
  state.SetItemsProcessed(state.iterations() * 2);  // items = switches
}
BENCHMARK(BM_FiberSwitch);

// One threadgroup of 1024 threads crossing `iterations` barriers; items = barriers.
void BM_Barrier1024(benchmark::State& state) {
  std::uint32_t iterations = 64;
  std::uint32_t out = 0;
  LaunchSpec s;
  s.kernel = "bench_barriers";
  s.threads_per_threadgroup = {1024, 1, 1};
  s.limits = limits();
  s.buffers[0] = {&iterations, sizeof iterations};
  s.buffers[1] = {&out, sizeof out};
  s.options.trace = state.range(0) != 0;
  s.options.check_threadgroup_memory = false;
  for (auto _ : state) {
    benchmark::DoNotOptimize(launch(s));
  }
  state.SetItemsProcessed(state.iterations() * iterations);
  state.counters["ns_per_thread_switch"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * iterations * 1024,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Barrier1024)->Arg(0)->Arg(1)->ArgName("trace");

// Launches `s` (one simdgroup, traced, with `iterations` bound as buffer 0) once per benchmark
// iteration; items = the kernel's loop iterations.
void run_simdgroup_loop(benchmark::State& state, LaunchSpec& s, std::uint32_t& iterations) {
  s.threads_per_threadgroup = {32, 1, 1};
  s.limits = limits();
  s.buffers[0] = {&iterations, sizeof iterations};
  s.options.trace = true;
  for (auto _ : state) {
    benchmark::DoNotOptimize(launch(s));
  }
  state.SetItemsProcessed(state.iterations() * iterations);
}

// One simdgroup doing `iterations` multiply-accumulates; items = MMAs.
void BM_SimdgroupMma(benchmark::State& state) {
  std::uint32_t iterations = 256;
  std::vector<_Float16> a(64, static_cast<_Float16>(0.0f));
  std::vector<float> c(64);
  LaunchSpec s;
  s.kernel = "bench_mma";
  s.buffers[1] = {a.data(), a.size() * 2};
  s.buffers[2] = {c.data(), c.size() * 4};
  run_simdgroup_loop(state, s, iterations);
}
BENCHMARK(BM_SimdgroupMma);

// One simdgroup doing `iterations` steps of the fused GEMM's inner loop (bench.metal,
// bench_simd_barriers): two simdgroup barriers, a matrix load and a multiply each; items =
// steps.
void BM_SimdgroupBarrierStep(benchmark::State& state) {
  std::uint32_t iterations = 256;
  std::vector<float> c(64);
  LaunchSpec s;
  s.kernel = "bench_simd_barriers";
  s.buffers[1] = {c.data(), c.size() * 4};
  run_simdgroup_loop(state, s, iterations);
}
BENCHMARK(BM_SimdgroupBarrierStep);

// test_matrix_gemm (4 simdgroups, 16x16 tiles) on an N x N x N problem; items = simdgroup
// trace ops, bytes = none; the GFLOP/s counter is functional throughput.
void BM_TiledGemm(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  struct {
    std::uint32_t m, n, k;
  } p{n, n, n};
  std::vector<_Float16> a(n * n, static_cast<_Float16>(0.5f)),
      b(n * n, static_cast<_Float16>(0.25f));
  std::vector<float> c(n * n);
  LaunchSpec s;
  s.kernel = "test_matrix_gemm";
  s.threadgroups = {n / 16, n / 16, 1};
  s.threads_per_threadgroup = {128, 1, 1};
  s.limits = limits();
  s.buffers[0] = {a.data(), a.size() * 2};
  s.buffers[1] = {b.data(), b.size() * 2};
  s.buffers[2] = {c.data(), c.size() * 4};
  s.buffers[3] = {&p, sizeof p};
  s.options.host_threads = static_cast<unsigned>(state.range(1));
  std::uint64_t ops = 0;
  for (auto _ : state) {
    const LaunchResult r = launch(s);
    ops = 0;
    for (const SimdgroupTrace& t : r.trace.simdgroups) ops += t.ops.size();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ops));
  state.counters["GFLOPs"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 2.0 * n * n * n * 1e-9,
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TiledGemm)->Args({64, 1})->Args({64, 2})->ArgNames({"n", "threads"})->UseRealTime();

}  // namespace
}  // namespace marlin::sim

BENCHMARK_MAIN();
