// Launching a kernel on the engine: a grid of threadgroups x threads per threadgroup, as
// Metal's dispatchThreadgroups, with buffers, threadgroup-memory lengths and device limits.
//
// Contract: launch() refuses a launch Metal would refuse (unknown kernel, missing argument,
// over-limit threads or threadgroup memory) with marlin::InputError before running anything.
// A launch whose traces would exceed options.max_trace_bytes stops with TraceLimitExceeded.
// With options.trace_sink, the traces go to the sink as threadgroups finish (trace_sink.h).
// Kernel bugs found while running (out-of-bounds, races, divergence, ...) come back as
// Diagnostics in the result, and as a KernelFault exception when
// options.throw_on_diagnostic is set. Results, diagnostics and traces are identical at any
// options.host_threads (atomics: see docs/engine.md).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/runtime/diagnostics.h"
#include "sim/runtime/lane_context.h"
#include "sim/runtime/trace.h"
#include "sim/runtime/trace_budget.h"
#include "sim/runtime/trace_sink.h"

namespace marlin::sim {

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t volume() const { return std::uint64_t{x} * y * z; }
};

// The position (x, y, z) of the threadgroup of linear index `linear` (x fastest) in `grid`.
inline std::array<std::uint32_t, 3> threadgroup_position(std::uint64_t linear, Dim3 grid) {
  return {static_cast<std::uint32_t>(linear % grid.x),
          static_cast<std::uint32_t>((linear / grid.x) % grid.y),
          static_cast<std::uint32_t>(linear / (std::uint64_t{grid.x} * grid.y))};
}

// The device's API limits, passed as plain numbers by the caller (from its DeviceSpec).
struct DeviceLimits {
  std::uint32_t max_threads_per_threadgroup = 0;
  std::uint64_t max_threadgroup_memory_bytes = 0;
};

struct BufferArg {
  void* data = nullptr;
  std::size_t bytes = 0;
};

// A subset of a launch's threadgroups, for sampled simulation. x = 0 runs every threadgroup.
// - Block (period 0): the first `count` threadgroups, in row-major order, of the block of x by
//   y threadgroups at the grid's origin (z = 0).
// - Strided (period > 0): threadgroup i (linear index, x fastest) runs if i mod period < x:
//   what the first x of `period` cores receive in the first wave.
struct ThreadgroupSlice {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  std::uint32_t count = 0;
  std::uint32_t period = 0;
  bool runs(std::uint64_t linear, std::uint32_t gx, std::uint32_t gy, std::uint32_t gz) const {
    if (x == 0) return true;
    if (period != 0) return linear % period < x;
    return gx < x && gy < y && gz == 0 && gx + std::uint64_t{gy} * x < count;
  }
};

// Threadgroups of a launch whose traces are alike (docs/engine.md, "Threadgroups by
// translation"): those of [0, x) x [0, y) of a grid with z = 1 run the same trace up to each
// buffer's addresses, moved by an amount affine in the threadgroup's position, as the tiles of a
// tiled kernel away from its grid's ragged edges do. The caller vouches for it; the engine runs
// the first of them (in the slice), its neighbours along x and y and two more that it checks,
// traced, and builds the others' traces from the first's, or traces them as usual if a check
// fails or a probe reported a diagnostic. With `execute`, the others still run, untraced, so
// they write their output (full runs); without, they do not run and write nothing (sampled
// runs). Only with tracing; x = 0: every threadgroup runs traced.
// With `execute` and `batch`, the copies run kBatchWidth at a time through the kernel's
// batched build when it has one (batch_run.h, docs/engine.md "Copies in batches"); the same
// outputs and traces, without a race check of the copies (the probes checked their pattern).
struct AlikeThreadgroups {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  bool execute = false;
  bool batch = true;
};

struct LaunchOptions {
  unsigned host_threads = 1;             // threadgroups run concurrently on this many threads
  ThreadgroupSlice slice;                // run only these threadgroups (traces in index order)
  AlikeThreadgroups alike;               // build these threadgroups' traces by translation
  bool trace = true;                     // record the per-simdgroup trace
  bool check_threadgroup_memory = true;  // race and uninitialized-read sanitizer
  bool throw_on_diagnostic = true;       // throw KernelFault if any diagnostic was produced
  std::size_t fiber_stack_bytes = 64 * 1024;
  std::size_t max_diagnostics = 64;  // further ones are counted, not kept
  // Host bytes the traces may take (0: no limit); a launch over it stops with
  // TraceLimitExceeded, an InputError (trace_budget.h).
  std::uint64_t max_trace_bytes = 0;
  // Receives the traces threadgroup by threadgroup instead of the result (trace_sink.h); needs
  // `trace` and no slice. max_trace_bytes does not apply: the sink decides what it holds.
  ThreadgroupTraceSink* trace_sink = nullptr;
  // Worker threads (host_threads > 1) run at a lower scheduling priority than the rest of the
  // process (Linux: nice 10; ignored elsewhere), so that a thread consuming the traces as they
  // come, such as a streamed replay, gets a core whenever it can run. Results do not change.
  bool workers_yield = false;
  // Called once, on the launch's thread, when the workers have run every threadgroup of the
  // last pass, while the sink may still be taking the translated threadgroups' traces (a
  // consumer may then take the host's cores, and the engine's own work is over).
  std::function<void()> workers_done;
  // Incremented (relaxed) each time a worker is done with a threadgroup of the launch's last
  // pass: when launch() returns it has grown by the threadgroups run (a slice's, or all). For
  // a progress display; results do not depend on it.
  std::atomic<std::uint64_t>* threadgroups_done = nullptr;
};

struct LaunchSpec {
  std::string kernel;
  Dim3 threadgroups;  // threadgroups per grid
  Dim3 threads_per_threadgroup;
  std::map<std::uint32_t, BufferArg> buffers;                  // [[buffer(n)]]
  std::map<std::uint32_t, std::uint32_t> threadgroup_lengths;  // [[threadgroup(n)]] bytes
  DeviceLimits limits;
  LaunchOptions options;
};

struct LaunchStats {
  std::uint64_t threadgroups = 0;
  std::uint64_t threads = 0;
  std::uint64_t fiber_resumes = 0;
  std::uint64_t threadgroups_as_plain_loop = 0;  // ran without fibers (no synchronization)
  std::uint64_t threadgroups_translated = 0;     // traces built by translation (alike)
  std::uint64_t threadgroups_batched = 0;        // copies run in batches (batch_run.h)
  std::uint64_t batches_stopped = 0;  // batches that stopped, their copies then run alone
  std::array<std::uint64_t, kAluKindCount> alu_lane_ops{};  // summed over all threads
};

struct LaunchResult {
  std::vector<Diagnostic> diagnostics;
  std::uint64_t diagnostics_dropped = 0;
  LaunchTrace trace;  // empty simdgroups when options.trace is off
  LaunchStats stats;
  std::uint64_t threadgroup_memory_bytes = 0;  // static declarations + arguments
  bool ok() const { return diagnostics.empty(); }
};

LaunchResult launch(const LaunchSpec& spec);

// Threadgroup memory a launch of `kernel` needs: kernel-scope declarations, then each
// [[threadgroup(n)]] argument rounded up to 16 bytes. Throws InputError if unknown.
std::uint64_t threadgroup_memory_bytes(const std::string& kernel,
                                       const std::map<std::uint32_t, std::uint32_t>& lengths);

}  // namespace marlin::sim
