#include "sim/runtime/launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <thread>

#include "model/common/input_error.h"
#include "sim/runtime/batch_run.h"
#include "sim/runtime/kernel_registry.h"
#include "sim/runtime/thread_priority.h"
#include "sim/runtime/threadgroup_run.h"
#include "sim/runtime/trace_budget.h"
#include "sim/runtime/trace_translation.h"

namespace marlin::sim {

namespace {

constexpr std::uint64_t kArgumentAlignment = 16;

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

// Lays out the arena: kernel-scope declarations in order, then [[threadgroup(n)]]
// arguments by index, each rounded up to 16 bytes.
void layout_threadgroup_memory(const KernelInfo& k,
                               const std::map<std::uint32_t, std::uint32_t>& lengths,
                               LaunchPlan& plan) {
  std::uint64_t end = 0;
  for (const ThreadgroupDecl& d : k.threadgroup_decls) {
    end = align_up(end, d.align);
    plan.decl_offsets.push_back(static_cast<std::uint32_t>(end));
    end += d.bytes;
  }
  std::uint32_t max_index = 0;
  for (const KernelParam& p : k.params) {
    if (p.kind == ParamKind::kThreadgroup) max_index = std::max(max_index, p.index + 1);
  }
  plan.arg_offsets.assign(max_index, 0);
  plan.arg_bytes.assign(max_index, 0);
  for (const KernelParam& p : k.params) {
    if (p.kind != ParamKind::kThreadgroup) continue;
    auto it = lengths.find(p.index);
    if (it == lengths.end()) {
      throw InputError(
          fmt::format("kernel '{}': threadgroup memory length for parameter '{}' "
                      "[[threadgroup({})]] is not set",
                      k.name, p.name, p.index));
    }
    end = align_up(end, kArgumentAlignment);
    plan.arg_offsets[p.index] = static_cast<std::uint32_t>(end);
    plan.arg_bytes[p.index] = it->second;
    end += align_up(it->second, kArgumentAlignment);
  }
  plan.arena_bytes = end;
}

void validate(const LaunchSpec& spec, const KernelInfo& k, const LaunchPlan& plan) {
  const auto& g = spec.threadgroups;
  const auto& t = spec.threads_per_threadgroup;
  if (g.volume() == 0 || t.volume() == 0) {
    throw InputError(
        fmt::format("kernel '{}': launch dimensions must be positive (grid {}x{}x{} "
                    "threadgroups of {}x{}x{} threads)",
                    k.name, g.x, g.y, g.z, t.x, t.y, t.z));
  }
  if (spec.limits.max_threads_per_threadgroup == 0 ||
      spec.limits.max_threadgroup_memory_bytes == 0) {
    throw InputError(
        fmt::format("kernel '{}': device limits are not set (max threads per "
                    "threadgroup and max threadgroup memory must be positive)",
                    k.name));
  }
  if (t.volume() > spec.limits.max_threads_per_threadgroup) {
    throw InputError(
        fmt::format("kernel '{}': {} threads per threadgroup exceed the device "
                    "limit of {}",
                    k.name, t.volume(), spec.limits.max_threads_per_threadgroup));
  }
  if (k.max_total_threads_per_threadgroup != 0 &&
      t.volume() > k.max_total_threads_per_threadgroup) {
    throw InputError(
        fmt::format("kernel '{}': {} threads per threadgroup exceed the kernel's "
                    "[[max_total_threads_per_threadgroup({})]]",
                    k.name, t.volume(), k.max_total_threads_per_threadgroup));
  }
  if (plan.arena_bytes > spec.limits.max_threadgroup_memory_bytes) {
    throw InputError(fmt::format(
        "kernel '{}': threadgroup memory of {} bytes ({} in kernel-scope "
        "declarations, {} in [[threadgroup(n)]] arguments) exceeds the "
        "device limit of {} bytes",
        k.name, plan.arena_bytes, k.static_threadgroup_bytes(),
        plan.arena_bytes - k.static_threadgroup_bytes(), spec.limits.max_threadgroup_memory_bytes));
  }
  for (const KernelParam& p : k.params) {
    if (p.kind != ParamKind::kBuffer) continue;
    auto it = spec.buffers.find(p.index);
    if (it == spec.buffers.end() || it->second.data == nullptr) {
      throw InputError(fmt::format("kernel '{}': parameter '{}' [[buffer({})]] is not bound",
                                   k.name, p.name, p.index));
    }
  }
}

LaunchPlan make_plan(const LaunchSpec& spec, const KernelInfo& k) {
  LaunchPlan plan;
  plan.kernel = &k;
  plan.spec = &spec;
  layout_threadgroup_memory(k, spec.threadgroup_lengths, plan);
  validate(spec, k, plan);
  std::uint32_t max_index = 0;
  for (const auto& [index, arg] : spec.buffers) max_index = std::max(max_index, index + 1);
  plan.buffers.resize(max_index);
  for (const auto& [index, arg] : spec.buffers) {
    Region& r = plan.buffers[index];
    r.base = static_cast<std::byte*>(arg.data);
    r.bytes = arg.bytes;
    r.buffer_id = static_cast<std::uint16_t>(index);
    r.space = Space::kDevice;
    r.name = "";
  }
  for (const KernelParam& p : k.params) {
    if (p.kind == ParamKind::kBuffer) plan.buffers[p.index].name = p.name;
  }
  plan.constant_buffers = plan.buffers;
  for (Region& r : plan.constant_buffers) r.space = Space::kConstant;
  plan.threads = static_cast<std::uint32_t>(spec.threads_per_threadgroup.volume());
  plan.simdgroups = (plan.threads + kSimdWidth - 1) / kSimdWidth;
  return plan;
}

// Worker states (fiber stacks, arena, shadow) outlive launches: a fresh pool would page-fault
// its way through a thousand new stacks on every launch.
class WorkerCache {
 public:
  std::unique_ptr<WorkerState> acquire(std::size_t stack_bytes) {
    std::lock_guard lock(mutex_);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if ((*it)->stacks.stack_bytes() == FiberStackPool::round_up(stack_bytes)) {
        std::unique_ptr<WorkerState> w = std::move(*it);
        free_.erase(it);
        return w;
      }
    }
    return std::make_unique<WorkerState>(stack_bytes);
  }
  void release(std::unique_ptr<WorkerState> w) {
    std::lock_guard lock(mutex_);
    if (free_.size() < kMaxCached) free_.push_back(std::move(w));
  }

 private:
  static constexpr std::size_t kMaxCached = 8;
  std::mutex mutex_;
  std::vector<std::unique_ptr<WorkerState>> free_;
};

WorkerCache& worker_cache() {
  static WorkerCache cache;
  return cache;
}

}  // namespace

std::uint64_t threadgroup_memory_bytes(const std::string& kernel,
                                       const std::map<std::uint32_t, std::uint32_t>& lengths) {
  LaunchPlan plan;
  layout_threadgroup_memory(find_kernel(kernel), lengths, plan);
  return plan.arena_bytes;
}

LaunchResult launch(const LaunchSpec& spec) {
  const KernelInfo& kernel = find_kernel(spec.kernel);
  const LaunchPlan plan = make_plan(spec, kernel);
  const std::uint64_t count = spec.threadgroups.volume();
  if (count > 0xFFFFFFFFu) {
    throw InputError(fmt::format("kernel '{}': {} threadgroups exceed 2^32", kernel.name, count));
  }
  const ThreadgroupSlice& slice = spec.options.slice;
  if (slice.x != 0 && slice.period == 0 && (slice.y == 0 || slice.count == 0)) {
    throw InputError(fmt::format("kernel '{}': threadgroup slice of {} in a {}x{} block is empty",
                                 kernel.name, slice.count, slice.x, slice.y));
  }
  ThreadgroupTraceSink* const sink = spec.options.trace_sink;
  if (sink != nullptr && (!spec.options.trace || slice.x != 0)) {
    throw InputError(
        fmt::format("kernel '{}': a trace sink needs tracing on and no slice", kernel.name));
  }
  std::vector<std::uint32_t> selected;
  selected.reserve(slice.x == 0 ? count : slice.count);
  const Dim3& g = spec.threadgroups;
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto [x, y, z] = threadgroup_position(i, g);
    if (slice.runs(i, x, y, z)) selected.push_back(static_cast<std::uint32_t>(i));
  }
  const std::uint64_t runs = selected.size();
  std::vector<ThreadgroupOutput> outputs(runs);
  const TranslationPlan translation = plan_translation(
      selected, spec.threadgroups, spec.options.trace ? spec.options.alike : AlikeThreadgroups{});
  const bool execute_copies = spec.options.alike.execute;
  std::optional<Translator> translator;  // once the probes ran and agree
  // Copies run in batches through the kernel's batched build, if it has one (batch_run.h),
  // until a batch stops: the rest then run one by one.
  const BatchKernelEntry batch_entry =
      execute_copies && spec.options.alike.batch ? find_batch_kernel(kernel.name) : nullptr;
  std::atomic<bool> batching{batch_entry != nullptr};

  // Threadgroups are independent: workers take them in increasing order from a shared counter
  // and finish them in any order; outputs are stored by threadgroup index so the merged result
  // does not depend on the schedule (a trace sink relies on the increasing order).
  TraceBudget budget(spec.options.trace && sink == nullptr ? spec.options.max_trace_bytes : 0, runs,
                     kernel.name);
  if (sink != nullptr) {
    sink->begin_launch({kernel.name,
                        {spec.threadgroups.x, spec.threadgroups.y, spec.threadgroups.z},
                        {spec.threads_per_threadgroup.x, spec.threads_per_threadgroup.y,
                         spec.threads_per_threadgroup.z},
                        plan.arena_bytes});
  }
  std::atomic<std::uint64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  // Two passes when threadgroups are translated (trace_translation.h): the probes run traced
  // first, then every position in order; otherwise one pass over every position.
  bool probing = translation.copies();
  std::vector<std::size_t> all_positions(runs);
  std::iota(all_positions.begin(), all_positions.end(), std::size_t{0});
  const std::vector<std::size_t>* pass = probing ? &translation.probes : &all_positions;
  const auto is_probe = [&](std::size_t i) {
    return std::binary_search(translation.probes.begin(), translation.probes.end(), i);
  };
  // With a sink, the probes whose traces are their translation (all of them, once the
  // translator agrees) drop those traces after the first pass and rebuild them at their turn,
  // so the run holds the translator's copy of the base's traces rather than every probe's.
  std::vector<bool> rebuilt(runs, false);
  // Gives position i its traces: a copied threadgroup by translation (running as a copy with
  // `execute`, for its results, else taking the base's stats; its ALU counts are the base's
  // either way); a probe in the first pass and any other threadgroup by running traced. (A
  // probe's second pass only hands it on, its traces rebuilt if they were dropped.)
  // With a sink, translated traces are built only when it does not take them as a
  // translation (feed).
  const auto translate_into_output = [&](std::size_t i, WorkerState& worker) {
    translator->traces_into(i, worker.spare_traces);
    outputs[i].traces = std::move(worker.spare_traces);
    worker.spare_traces.clear();
  };
  const auto copied = [&](std::size_t i) {
    return !probing && translator && translation.copied[i] && !rebuilt[i];
  };
  const auto produce = [&](std::size_t i, WorkerState& worker) {
    if (!probing && rebuilt[i]) {
      if (sink == nullptr) translate_into_output(i, worker);
    } else if (copied(i)) {
      if (execute_copies) {
        ThreadgroupRun run(plan, worker, selected[i], outputs[i], ThreadgroupRole::kCopy);
        run.run();
        outputs[i].stats.alu_lane_ops = outputs[translation.base].stats.alu_lane_ops;
      } else {
        outputs[i].stats = outputs[translation.base].stats;
      }
      if (sink == nullptr) translate_into_output(i, worker);
      outputs[i].stats.threadgroups_translated = 1;
    } else if (probing || !is_probe(i)) {
      // ended before its traces move on: its destructor notes their sizes for the next
      ThreadgroupRun run(plan, worker, selected[i], outputs[i]);
      run.run();
    }
  };
  // With a sink, the second pass's translated threadgroups (the copies and the probes rebuilt
  // by translation) are put by a thread of their own (feed), in order, as soon as the probes
  // agree, so that their traces do not wait for the copies to run: a consumer such as a
  // streamed replay starts while the workers still execute them.
  const auto fed = [&](std::size_t i) {
    return sink != nullptr && !probing && translator && (rebuilt[i] || translation.copied[i]);
  };
  std::atomic<bool> stopped{false};  // by a failure
  const auto fail = [&](std::uint64_t end) {
    std::lock_guard lock(failure_mutex);
    if (!failure) failure = std::current_exception();
    next = end;
    stopped = true;
    // Releases the consumer and any thread blocked in put() (it may wait for this one).
    if (sink != nullptr) sink->abort();
  };
  // Puts position i's traces into the sink, or accounts for them.
  const auto hand_on = [&](std::size_t i, WorkerState& worker) {
    if (sink == nullptr) {
      budget.account(i, outputs[i].traces);
      return;
    }
    worker.spare_traces = sink->put(selected[i], std::move(outputs[i].traces));
    outputs[i].traces = {};
  };
  // Position i is done: counted for progress, and its traces handed on.
  const auto finish = [&](std::size_t i, WorkerState& worker) {
    if (!probing && spec.options.threadgroups_done != nullptr) {
      spec.options.threadgroups_done->fetch_add(1, std::memory_order_relaxed);
    }
    // The sink takes the probes in order, in the second pass; the budget as they ran.
    const bool held = probing && sink != nullptr;
    const bool accounted = !probing && sink == nullptr && is_probe(i);
    if (!held && !accounted && !fed(i)) hand_on(i, worker);
  };
  // Copies `positions` as one batch; those of a batch that stopped run one by one.
  const auto produce_batch = [&](std::span<const std::size_t> positions, WorkerState& worker) {
    bool ran = false;
    if (batching) {
      std::array<std::uint32_t, kBatchWidth> indices{};
      for (std::size_t k = 0; k < positions.size(); ++k) indices[k] = selected[positions[k]];
      BatchRun batch(plan, worker, std::span(indices.data(), positions.size()), batch_entry);
      ran = batch.run();
      outputs[positions.front()].stats.fiber_resumes += batch.fiber_resumes();
      if (!ran && batching.exchange(false)) outputs[positions.front()].stats.batches_stopped = 1;
    }
    for (const std::size_t i : positions) {
      if (!ran) {
        produce(i, worker);
        continue;
      }
      LaunchStats& stats = outputs[i].stats;
      stats.threadgroups = 1;
      stats.threads = plan.threads;
      stats.alu_lane_ops = outputs[translation.base].stats.alu_lane_ops;
      stats.threadgroups_translated = 1;
      stats.threadgroups_batched = 1;
      stats.threadgroups_as_plain_loop = kernel.synchronizes ? 0 : 1;
      if (sink == nullptr) translate_into_output(i, worker);
    }
  };
  // The pass's work items, in its order: position `pass[first]`, or a batch of up to
  // kBatchWidth copies in order, `batched[first ..)`, which takes the place of its first (the
  // positions between them are items of their own: no worker puts a copy into a sink, so no
  // order between them is lost).
  struct WorkItem {
    std::size_t first = 0;
    std::uint32_t count = 1;
    bool batch = false;
  };
  std::vector<WorkItem> items;
  std::vector<std::size_t> batched;  // the pass's copies, in order
  const auto plan_items = [&] {
    items.clear();
    batched.clear();
    constexpr std::size_t kNone = ~std::size_t{0};
    std::size_t open = kNone;  // the batch being filled
    for (std::size_t n = 0; n < pass->size(); ++n) {
      const std::size_t i = (*pass)[n];
      if (batch_entry == nullptr || !copied(i)) {
        items.push_back({n, 1, false});
        continue;
      }
      batched.push_back(i);
      if (open != kNone && items[open].count < kBatchWidth) {
        ++items[open].count;
      } else {
        open = items.size();
        items.push_back({batched.size() - 1, 1, true});
      }
    }
  };
  const auto work = [&] {
    const std::uint64_t end = items.size();
    try {
      std::unique_ptr<WorkerState> worker = worker_cache().acquire(spec.options.fiber_stack_bytes);
      for (std::uint64_t n = next++; n < end; n = next++) {
        const WorkItem& item = items[n];
        const std::span<const std::size_t> positions(
            (item.batch ? batched.data() : pass->data()) + item.first, item.count);
        if (item.batch) {
          produce_batch(positions, *worker);
        } else {
          produce(positions.front(), *worker);
        }
        for (const std::size_t i : positions) finish(i, *worker);
      }
      worker->spare_traces.clear();  // the cache keeps workers, not their last launch's traces
      worker_cache().release(std::move(worker));
    } catch (...) {
      fail(end);
    }
  };
  const auto feed = [&] {
    try {
      std::vector<SimdgroupTrace> built;
      for (std::size_t i = 0; i < runs && !stopped; ++i) {
        if (!fed(i)) continue;
        if (sink->put_translated(selected[i], translator->base(),
                                 translator->shifts_of(i).entries(), translator->position_of(i))) {
          continue;
        }
        translator->traces_into(i, built);
        built = sink->put(selected[i], std::move(built));
      }
    } catch (...) {
      fail(items.size());
    }
  };
  const auto run_pass = [&](const std::vector<std::size_t>& positions) {
    pass = &positions;
    plan_items();
    next = 0;
    std::thread feeder;
    if (sink != nullptr && !probing && translator) feeder = std::thread(feed);
    const unsigned workers = static_cast<unsigned>(std::clamp<std::uint64_t>(
        spec.options.host_threads, 1, std::max<std::uint64_t>(items.size(), 1)));
    if (workers == 1) {
      work();
    } else {
      std::vector<std::thread> threads;
      for (unsigned w = 0; w < workers; ++w) {
        threads.emplace_back([&] {
          if (spec.options.workers_yield) lower_this_threads_priority();
          work();
        });
      }
      for (std::thread& t : threads) t.join();
    }
    if (!probing && spec.options.workers_done) spec.options.workers_done();
    if (feeder.joinable()) feeder.join();
    if (failure) std::rethrow_exception(failure);
  };
  if (probing) {
    run_pass(translation.probes);
    const bool diagnosed =
        std::any_of(translation.probes.begin(), translation.probes.end(), [&](std::size_t i) {
          return !outputs[i].diagnostics.empty() || outputs[i].diagnostics_dropped > 0;
        });
    if (!diagnosed) {
      translator = Translator::make(
          translation, selected, spec.threadgroups,
          [&](std::size_t i) -> const std::vector<SimdgroupTrace>& { return outputs[i].traces; });
    }
    if (translator && sink != nullptr) {
      for (const std::size_t i : translation.probes) {
        // Translator::make compared the checks already; the base and its neighbours here.
        const bool checked = std::find(translation.checks.begin(), translation.checks.end(), i) !=
                             translation.checks.end();
        if (!checked && translator->traces_of(i) != outputs[i].traces) continue;
        rebuilt[i] = true;
        outputs[i].traces = {};
      }
    }
    probing = false;
  }
  run_pass(all_positions);

  LaunchResult result;
  result.threadgroup_memory_bytes = plan.arena_bytes;
  result.trace.kernel = kernel.name;
  result.trace.threadgroups_per_grid = {spec.threadgroups.x, spec.threadgroups.y,
                                        spec.threadgroups.z};
  result.trace.threads_per_threadgroup = {spec.threads_per_threadgroup.x,
                                          spec.threads_per_threadgroup.y,
                                          spec.threads_per_threadgroup.z};
  result.trace.threadgroup_memory_bytes = plan.arena_bytes;
  for (ThreadgroupOutput& o : outputs) {
    for (Diagnostic& d : o.diagnostics) {
      if (result.diagnostics.size() < spec.options.max_diagnostics) {
        result.diagnostics.push_back(std::move(d));
      } else {
        ++result.diagnostics_dropped;
      }
    }
    result.diagnostics_dropped += o.diagnostics_dropped;
    for (SimdgroupTrace& t : o.traces) result.trace.simdgroups.push_back(std::move(t));
    LaunchStats& s = result.stats;
    s.threadgroups += o.stats.threadgroups;
    s.threads += o.stats.threads;
    s.fiber_resumes += o.stats.fiber_resumes;
    s.threadgroups_as_plain_loop += o.stats.threadgroups_as_plain_loop;
    s.threadgroups_translated += o.stats.threadgroups_translated;
    s.threadgroups_batched += o.stats.threadgroups_batched;
    s.batches_stopped += o.stats.batches_stopped;
    for (std::size_t k = 0; k < kAluKindCount; ++k) s.alu_lane_ops[k] += o.stats.alu_lane_ops[k];
  }
  if (spec.options.throw_on_diagnostic && !result.diagnostics.empty()) {
    throw KernelFault(result.diagnostics);
  }
  return result;
}

}  // namespace marlin::sim
