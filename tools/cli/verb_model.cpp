// `marlin-sim model`: a workload (a graph of kernel launches, repeated per layer) timed on the
// device: per-node times, the critical path, time per layer and per step, tokens per second.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <tuple>
#include <vector>

#include "kernels/launch/selection_table.h"
#include "model/analytic/intensity.h"
#include "model/common/input_error.h"
#include "model/common/join.h"
#include "model/device/profile_loader.h"
#include "tools/cli/args.h"
#include "tools/cli/format.h"
#include "tools/cli/host_memory.h"
#include "tools/cli/kernel_run.h"
#include "tools/cli/parallel_jobs.h"
#include "tools/cli/table.h"
#include "tools/cli/verbs.h"
#include "tools/workload/workload.h"

namespace po = boost::program_options;

namespace marlin::cli {
namespace {

// A name from tools/workloads/, or a path.
workload::Workload find_workload(const std::string& name) {
  const bool path = name.find('/') != std::string::npos ||
                    (name.size() > 5 && name.substr(name.size() - 5) == ".json");
  if (path) return workload::load_workload(name);
  const std::filesystem::path file = std::filesystem::path(MARLIN_WORKLOADS_DIR) / (name + ".json");
  if (!std::filesystem::exists(file)) {
    std::string names;
    for (const auto& entry : std::filesystem::directory_iterator(MARLIN_WORKLOADS_DIR)) {
      if (entry.path().extension() == ".json") {
        append_item(names, ", ", entry.path().stem().string());
      }
    }
    throw InputError(fmt::format("unknown workload '{}'; the workloads are: {}", name, names));
  }
  return workload::load_workload(file.string());
}

kernels::GemmKernel kernel_for(const workload::Workload& w, const workload::Node& node,
                               std::int64_t m) {
  if (node.kernel) return kernels::find_gemm_kernel(*node.kernel, node.tile);
  return kernels::SelectionTable::analysis_default().select(m, w.weights);
}

// Roofline lower bound of one GEMM of the workload's weight format.
double roofline_seconds(const model::DeviceSpec& device, const workload::Workload& w,
                        const workload::Node& node, std::int64_t m) {
  const analytic::ProblemIntensity p = analytic::problem_intensity(
      {m, node.n, node.k}, analytic_weight_spec({w.weights, w.group_size}));
  return analytic::roofline(analytic::roofline_machine(device), static_cast<double>(p.flops),
                            static_cast<double>(p.total_bytes))
      .lower_bound_time_s;
}

// One distinct kernel and shape a workload simulates, with its result.
struct KernelJob {
  std::string node;  // the first node, in dependency order, that runs it (for messages)
  KernelRunRequest request;
  double seconds = 0;
};

// Runs every job on up to `threads` host threads, the jobs side by side, each with its share
// of the threads and of the default trace limit (the results depend on neither). Rethrows the
// failure of the first failed job in `jobs`' order, whichever failed first in time
// (run_parallel_jobs).
void run_kernel_jobs(const model::DeviceSpec& device, const std::string& workload,
                     std::vector<KernelJob>& jobs, unsigned threads, std::ostream& progress) {
  const unsigned at_once =
      std::max(1U, static_cast<unsigned>(std::min<std::size_t>(threads, jobs.size())));
  const unsigned each = std::max(1U, threads / at_once);
  const std::uint64_t trace_limit = default_trace_limit_bytes() / at_once;
  run_parallel_jobs(
      jobs.size(), threads,
      [&](std::size_t i) {
        KernelJob& job = jobs[i];
        job.request.host_threads = each;
        job.request.max_trace_bytes = trace_limit;
        try {
          job.seconds = run_kernel(device, job.request).timing.seconds;
        } catch (const InputError& error) {
          throw InputError(fmt::format("{}: node '{}': {}", workload, job.node, error.what()));
        }
      },
      [&](std::size_t done, std::size_t count) {
        progress << fmt::format("\rmodel: {}/{} kernels", done, count)
                 << (done == count ? "\n" : "") << std::flush;
      });
}

}  // namespace

int run_model(const std::vector<std::string>& args, Streams streams) {
  CommonFlags common;
  std::string workload_name;
  std::string batch_text = "1";
  std::string timing = "simulate";
  std::string host_threads;
  // clang-format off
  po::options_description options("model flags");
  options.add_options()
      ("workload", po::value<std::string>(&workload_name),
       "a workload from tools/workloads (llama2-7b-decode, llama3-8b-prefill, ...) or a path")
      ("batch", po::value<std::string>(&batch_text)->default_value("1"),
       "sequences per step: M = batch x the workload's tokens per sequence")
      ("timing", po::value<std::string>(&timing)->default_value("simulate"),
       "simulate: each kernel on the engine and the timing model, sampled (docs/sampling.md); "
       "full: the same at full fidelity (slow at real shapes); roofline: the analytical lower "
       "bound of each GEMM")
      ("host-threads", po::value<std::string>(&host_threads),
       "host threads for the simulations, which run side by side (default: the host's cores; "
       "results are identical at any count)");
  // clang-format on
  add_common_flags(options, common);
  const po::variables_map vm = parse_flags("model", args, options);
  if (common.help) {
    print_help(
        streams.out,
        "marlin-sim model --workload NAME|PATH [--batch B] [--timing simulate|full|roofline] "
        "[--host-threads N] [--device D] [--json]",
        "Times a workload (a graph of quantized GEMM launches, repeated per layer) on the\n"
        "device: per-node times, the critical path through the dependencies, time per layer\n"
        "and per step, tokens per second.",
        options);
    return 0;
  }
  require_flag(vm, "workload");
  if (timing != "simulate" && timing != "full" && timing != "roofline") {
    throw InputError(
        fmt::format("--timing: expected simulate, full or roofline, got '{}'", timing));
  }
  const std::int64_t batch = parse_integer("batch", batch_text, 1, 1 << 16);
  const unsigned threads = parse_host_threads(host_threads);
  const workload::Workload w = find_workload(workload_name);
  const model::DeviceSpec device = model::load_device(common.device);
  const bool simulate = timing != "roofline";

  // Every node's kernel at the workload's M (time_workload's), checked before anything runs;
  // the distinct kernels and shapes are simulated once each, side by side.
  const std::int64_t m = batch * w.tokens;
  std::map<std::string, std::string> kernel_names;
  std::map<std::string, std::size_t> job_of_node;
  std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::size_t> job_of_shape;
  std::vector<KernelJob> jobs;
  for (const std::size_t i : workload::dependency_order(w)) {
    const workload::Node& node = w.nodes[i];
    const kernels::GemmKernel kernel = kernel_for(w, node, m);
    if (kernel.weights != w.weights) {
      throw InputError(fmt::format("{}: node '{}': {} takes {} weights, the workload has {}",
                                   w.name, node.id, kernel.family_name,
                                   kernels::weight_format_kind_name(kernel.weights),
                                   kernels::weight_format_kind_name(w.weights)));
    }
    kernel_names[node.id] = kernel.metal_name;
    if (!simulate) continue;
    const auto shape = std::make_tuple(kernel.metal_name, node.n, node.k);
    const auto [found, added] = job_of_shape.emplace(shape, jobs.size());
    if (added) {
      KernelJob job;
      job.node = node.id;
      job.request.kernel = kernel.family_name;
      job.request.tile = kernel.tile;
      job.request.problem = {m, node.n, node.k};
      job.request.group_size = w.group_size;
      job.request.sample = timing == "simulate";
      jobs.push_back(std::move(job));
    }
    job_of_node[node.id] = found->second;
  }
  if (simulate) run_kernel_jobs(device, w.name, jobs, threads, streams.err);
  const workload::NodeTimer timer = [&](const workload::Node& node, std::int64_t rows) {
    if (!simulate) return roofline_seconds(device, w, node, rows);
    return jobs[job_of_node.at(node.id)].seconds;
  };
  // The timing model already charges each launch its dispatch overhead; the roofline does not.
  const workload::WorkloadTime t = workload::time_workload(
      w, batch, timer, simulate ? 0.0 : device.dispatch.dispatch_overhead_s);

  if (common.json) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const workload::NodeTime& n : t.nodes) {
      nodes.push_back({{"id", n.id},
                       {"kernel", kernel_names[n.id]},
                       {"seconds", n.seconds},
                       {"finish_s", n.finish_s},
                       {"critical", n.critical}});
    }
    streams.out << nlohmann::json{{"device", device.name},
                                  {"workload", w.name},
                                  {"model", w.model},
                                  {"timing", timing},
                                  {"batch", batch},
                                  {"m", t.m},
                                  {"layers", w.layers},
                                  {"nodes", nodes},
                                  {"critical_path", t.critical_path},
                                  {"layer_s", t.layer_s},
                                  {"step_s", t.step_s},
                                  {"tokens_per_s", t.tokens_per_s},
                                  {"serial_layer_s", t.serial_layer_s},
                                  {"serial_tokens_per_s", t.serial_tokens_per_s}}
                       .dump(2)
                << '\n';
    return 0;
  }
  streams.out << fmt::format("{} ({}) on {}: batch {}, M = {}, {} layers, timing: {}\n\n", w.name,
                             w.model, device.name, batch, t.m, w.layers,
                             simulate ? "simulated" : "roofline lower bound per GEMM");
  TextTable table({"node", "kernel", "time", "finishes at", "critical"});
  for (const workload::NodeTime& n : t.nodes) {
    table.add_row({n.id, kernel_names[n.id], format_seconds(n.seconds), format_seconds(n.finish_s),
                   n.critical ? "yes" : ""});
  }
  table.print(streams.out);
  std::string path;
  for (const std::string& id : t.critical_path) append_item(path, " -> ", id);
  streams.out << '\n';
  print_key_values(
      streams.out,
      {{"critical path", path},
       {"per layer", format_seconds(t.layer_s)},
       {w.decode ? "per token step" : "per prefill step",
        fmt::format("{} ({} layers)", format_seconds(t.step_s), w.layers)},
       {"tokens per second", fmt::format("{:.1f}", t.tokens_per_s)},
       {"serial launches", fmt::format("{} per layer, {:.1f} tokens per second (no overlap between "
                                       "independent launches)",
                                       format_seconds(t.serial_layer_s), t.serial_tokens_per_s)}});
  return 0;
}

}  // namespace marlin::cli
