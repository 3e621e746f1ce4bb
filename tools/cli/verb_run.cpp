// `marlin-sim run`: one kernel on one shape, executed on the engine and replayed by the timing
// model: predicted time, occupancy, waves, roofline, where the time goes, and with --check the
// functional result against the CPU reference.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "model/common/input_error.h"
#include "model/device/profile_loader.h"
#include "sim/runtime/trace_budget.h"
#include "tools/cli/args.h"
#include "tools/cli/kernel_run.h"
#include "tools/cli/plots.h"
#include "tools/cli/run_report.h"
#include "tools/cli/verbs.h"

namespace po = boost::program_options;

namespace marlin::cli {
namespace {

struct RunFlags {
  std::string kernel, tile, m, n, k;
  std::string group_size = "128";
  std::string k_parallel = "1";
  std::string threadgroups, activation, seed = "1", host_threads;
  std::string trace, trace_cores, trace_max_events, trace_every;
  std::string plot;
  std::string sample_cores;
  std::string max_trace_mb;
  bool bias = false;
  bool check = false;
  bool sample = false;
  bool sample_precise = false;
};

kernels::Activation parse_activation(const std::string& text) {
  if (text.empty() || text == "none") return kernels::Activation::kIdentity;
  if (text == "relu") return kernels::Activation::kRelu;
  if (text == "gelu") return kernels::Activation::kGeluTanh;
  if (text == "silu") return kernels::Activation::kSilu;
  throw InputError(fmt::format("--activation: expected none, relu, gelu or silu, got '{}'", text));
}

KernelRunRequest make_request(const po::variables_map& vm, const RunFlags& flags) {
  for (const char* flag : {"kernel", "m", "n", "k"}) require_flag(vm, flag);
  KernelRunRequest request;
  request.kernel = flags.kernel;
  if (!flags.tile.empty()) request.tile = parse_tile("tile", flags.tile);
  request.problem.m = parse_integer("m", flags.m, 1, 1 << 20);
  request.problem.n = parse_integer("n", flags.n, 1, 1 << 20);
  request.problem.k = parse_integer("k", flags.k, 1, 1 << 20);
  request.problem.k_parallel =
      static_cast<int>(parse_integer("k-parallel", flags.k_parallel, 1, 64));
  if (!flags.threadgroups.empty()) {
    request.problem.num_threadgroups =
        static_cast<std::uint32_t>(parse_integer("threadgroups", flags.threadgroups, 1, 1 << 24));
  }
  request.problem.bias = flags.bias;
  request.problem.activation = parse_activation(flags.activation);
  request.group_size =
      flags.group_size == "column"
          ? kernels::kPerColumnGroup
          : static_cast<int>(parse_integer("group-size", flags.group_size, 8, 1 << 20));
  request.check = flags.check;
  request.seed = static_cast<std::uint64_t>(parse_integer("seed", flags.seed, 0, INT64_MAX));
  request.host_threads = parse_host_threads(flags.host_threads);
  request.sample = flags.sample;
  if (flags.sample_precise) {
    if (!flags.sample) throw InputError("--sample-precise needs --sample");
    request.sample_precision = SamplePrecision::kPrecise;
  }
  if (!flags.sample_cores.empty()) {
    if (!flags.sample) throw InputError("--sample-cores needs --sample");
    request.sample_cores =
        static_cast<int>(parse_integer("sample-cores", flags.sample_cores, 1, 1 << 16));
  }
  if (!flags.max_trace_mb.empty()) {
    request.max_trace_bytes =
        static_cast<std::uint64_t>(parse_integer("max-trace-mb", flags.max_trace_mb, 1, 1 << 30)) *
        1'000'000;
  }
  request.trace_path = flags.trace;
  if (flags.trace.empty() && (vm.count("trace-cores") != 0 || vm.count("trace-max-events") != 0 ||
                              vm.count("trace-every") != 0)) {
    throw InputError("--trace-cores, --trace-max-events and --trace-every need --trace FILE");
  }
  if (vm.count("trace") != 0 && flags.trace.empty()) {
    throw InputError("--trace: expected a file name, got ''");
  }
  if (!flags.trace_cores.empty()) {
    request.trace_options.max_cores =
        static_cast<int>(parse_integer("trace-cores", flags.trace_cores, 1, 1 << 16));
  }
  if (!flags.trace_max_events.empty()) {
    request.trace_options.max_events =
        parse_integer("trace-max-events", flags.trace_max_events, 1, 1'000'000'000);
  }
  if (!flags.trace_every.empty()) {
    request.trace_options.threadgroup_stride =
        static_cast<int>(parse_integer("trace-every", flags.trace_every, 1, 1 << 24));
  }
  const bool classic = request.kernel.rfind("matmul_", 0) == 0;
  if (!classic && (flags.bias || !flags.activation.empty())) {
    throw InputError("--bias and --activation apply to the classic matmul kernels only");
  }
  if (request.kernel != "marlin_gemm_fp4_striped" &&
      (request.problem.k_parallel != 1 || !flags.threadgroups.empty())) {
    throw InputError("--k-parallel and --threadgroups apply to marlin_gemm_fp4_striped only");
  }
  return request;
}

}  // namespace

int run_run(const std::vector<std::string>& args, Streams streams) {
  CommonFlags common;
  RunFlags flags;
  po::options_description options("run flags");
  // clang-format off
  options.add_options()
      ("kernel", po::value<std::string>(&flags.kernel),
       "kernel family, e.g. marlin_gemm_fused_fp4 or matmul_tiled_32x32_f16")
      ("tile", po::value<std::string>(&flags.tile), "tile MxNxK (Marlin kernels), e.g. 64x64x32")
      ("m", po::value<std::string>(&flags.m), "rows of A and C")
      ("n", po::value<std::string>(&flags.n), "columns of W and C")
      ("k", po::value<std::string>(&flags.k), "reduction length")
      ("group-size", po::value<std::string>(&flags.group_size)->default_value("128"),
       "rows of K per scale (a multiple of 8), or 'column'")
      ("k-parallel", po::value<std::string>(&flags.k_parallel)->default_value("1"),
       "K slices per output tile (striped kernel)")
      ("threadgroups", po::value<std::string>(&flags.threadgroups),
       "1D grid size of the striped kernel (default: one full wave)")
      ("bias", po::bool_switch(&flags.bias), "classic matmuls: add a per-column bias")
      ("activation", po::value<std::string>(&flags.activation),
       "classic matmuls: relu, gelu or silu after the bias")
      ("check", po::bool_switch(&flags.check),
       "compare the output with the double-precision CPU reference; exit 1 if it fails")
      ("sample", po::bool_switch(&flags.sample),
       "sampled simulation: a slice of the cores at two reduced K, extrapolated "
       "(docs/sampling.md)")
      ("sample-cores", po::value<std::string>(&flags.sample_cores),
       "cores the sampled run simulates (default 1)")
      ("sample-precise", po::bool_switch(&flags.sample_precise),
       "grids of up to 512 threadgroups whole and K samples 4x apart: about half the error, "
       "at up to 30x the time")
      ("seed", po::value<std::string>(&flags.seed)->default_value("1"), "seed of the operands")
      ("host-threads", po::value<std::string>(&flags.host_threads),
       "host threads for the engine (default: the host's cores; results are identical at any "
       "count)")
      ("max-trace-mb", po::value<std::string>(&flags.max_trace_mb),
       "bound on the engine's traces in MB (default: 3/4 of the host's memory); a run over it "
       "stops with an error")
      ("plot", po::value<std::string>(&flags.plot),
       "write stall_breakdown.svg to this directory")
      ("trace", po::value<std::string>(&flags.trace),
       "write a Chrome trace-event JSON of the timing run to FILE (ui.perfetto.dev)")
      ("trace-cores", po::value<std::string>(&flags.trace_cores),
       "trace only the first N cores (default: all)")
      ("trace-max-events", po::value<std::string>(&flags.trace_max_events),
       "bound on the trace's events (default 1000000); later events are dropped and counted")
      ("trace-every", po::value<std::string>(&flags.trace_every),
       "simdgroup tracks of every K-th threadgroup only (default 1: all)");
  // clang-format on
  add_common_flags(options, common);
  const po::variables_map vm = parse_flags("run", args, options);
  if (common.help) {
    print_help(streams.out,
               "marlin-sim run --kernel NAME [--tile MxNxK] --m M --n N --k K [--group-size G] "
               "[--k-parallel P] [--check | --sample [--sample-cores C] [--sample-precise]] "
               "[--max-trace-mb MB] "
               "[--trace FILE [--trace-cores N] [--trace-max-events N] [--trace-every K]] "
               "[--device D] [--json]",
               "Runs one kernel on random operands of the given shape on the execution engine\n"
               "and replays it on the device's timing model: predicted time, occupancy, waves,\n"
               "roofline, the stall breakdown; with --check, the error against the reference.",
               options);
    return 0;
  }
  KernelRunRequest request = make_request(vm, flags);
  if (streams.err_is_terminal) request.progress = &streams.err;
  const model::DeviceSpec device = model::load_device(common.device);
  const KernelRunReport report = [&] {
    try {
      return run_kernel(device, request);
    } catch (const sim::TraceLimitExceeded& error) {
      throw InputError(fmt::format(
          "{}; --sample simulates a slice of the threadgroups, --max-trace-mb raises the limit",
          error.what()));
    }
  }();
  if (!flags.plot.empty()) plot_breakdown(report, flags.plot);
  if (common.json) {
    streams.out << run_report_json(device, report).dump(2) << '\n';
  } else {
    print_run_report(streams.out, device, report);
  }
  if (report.check_error && !(*report.check_error < report.check_bound && report.unwritten == 0)) {
    streams.err << "marlin-sim: check failed: the output differs from the reference\n";
    return 1;
  }
  return 0;
}

}  // namespace marlin::cli
