// `marlin-sim bench`: the simulator's own speed against its targets (docs/performance.md):
// full-fidelity runs, instruction rate, sampled runs and their error against the full runs,
// the sampled selection sweep and the peak memory, each printed beside its target and the
// ratio.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "model/device/profile_loader.h"
#include "sim/runtime/trace_budget.h"
#include "tools/cli/args.h"
#include "tools/cli/format.h"
#include "tools/cli/host_cpu.h"
#include "tools/cli/host_memory.h"
#include "tools/cli/kernel_run.h"
#include "tools/cli/selection_guide.h"
#include "tools/cli/table.h"
#include "tools/cli/verbs.h"

namespace po = boost::program_options;

namespace marlin::cli {
namespace {

using Clock = std::chrono::steady_clock;

// One benchmark result: measured against a target where smaller is better (times, bytes) or
// larger is better (rates). `measured` nullopt: not run.
struct BenchRow {
  std::string name;
  std::string unit;  // "s", "B", "instr/s"
  double target = 0;
  bool higher_is_better = false;
  std::optional<double> measured;
  std::string note;

  [[nodiscard]] bool met() const {
    return measured && (higher_is_better ? *measured >= target : *measured <= target);
  }
  // measured / target for "at most" targets, target / measured for "at least" ones: <= 1 is met.
  [[nodiscard]] double ratio() const {
    if (!measured || *measured == 0) return 0;
    return higher_is_better ? target / *measured : *measured / target;
  }
};

// A row with an "at most" target, not yet measured.
BenchRow make_row(std::string name, std::string unit, double target) {
  BenchRow row;
  row.name = std::move(name);
  row.unit = std::move(unit);
  row.target = target;
  return row;
}

KernelRunRequest fused_request(std::int64_t m, std::int64_t n, std::int64_t k, bool sample,
                               unsigned threads) {
  KernelRunRequest request;
  request.kernel = "marlin_gemm_fused_fp4";
  request.tile = analytic::Tile{64, 64, 32};
  request.problem = {.m = m, .n = n, .k = k};
  request.sample = sample;
  request.host_threads = threads;
  return request;
}

double wall(const KernelRunReport& r) { return r.functional_seconds + r.timing_seconds; }

// |sampled - full| / full of the predicted cycles, in percent.
double sampled_error_percent(const KernelRunReport& sampled, const KernelRunReport& full) {
  const auto full_cycles = static_cast<double>(full.timing.total_cycles.count());
  return 100 * std::abs(static_cast<double>(sampled.timing.total_cycles.count()) - full_cycles) /
         full_cycles;
}

// The row of a sampled run's error against the full-fidelity run of the same launch.
BenchRow sampled_error_row(const std::string& what, const KernelRunReport& sampled,
                           const KernelRunReport* full) {
  BenchRow row = make_row("sampled cycles against full fidelity, " + what, "%", 2);
  if (full == nullptr) {
    row.note = "not run: needs --heavy";
    return row;
  }
  row.measured = sampled_error_percent(sampled, *full);
  row.note = fmt::format("{} sampled against {} full cycles",
                         format_count(sampled.timing.total_cycles.count()),
                         format_count(full->timing.total_cycles.count()));
  return row;
}

std::string shape(std::int64_t m, std::int64_t n, std::int64_t k) {
  return fmt::format("{}x{}x{}", m, n, k);
}

std::string show(const BenchRow& row, double value) {
  if (row.unit == "s") return format_seconds(value);
  if (row.unit == "%") return fmt::format("{:.2f}%", value);
  if (row.unit == "B") return fmt::format("{:.2f} GB", value / 1e9);
  return format_rate(value, row.unit);
}

// The wall times of `repeat` runs of one case and the report of the fastest. The fastest run
// is the one least disturbed by other work on the host.
struct Repeated {
  KernelRunReport best;
  std::vector<double> walls;
};

Repeated run_repeated(const model::DeviceSpec& device, const KernelRunRequest& request,
                      int repeat) {
  Repeated out;
  for (int i = 0; i < repeat; ++i) {
    KernelRunReport report = run_kernel(device, request);
    out.walls.push_back(wall(report));
    if (out.walls.size() == 1 || out.walls.back() < wall(out.best)) out.best = std::move(report);
  }
  return out;
}

// "best of 3 (2.104-2.451 s)"; empty for a single run.
std::string spread(const std::vector<double>& walls) {
  if (walls.size() < 2) return "";
  const auto [low, high] = std::minmax_element(walls.begin(), walls.end());
  return fmt::format("best of {} ({}-{})", walls.size(), format_seconds(*low),
                     format_seconds(*high));
}

// "engine 9.351 s + timing 6.835 s": where the wall time of a run went (for a streamed run,
// the timing part is what the replay took after the engine ended).
std::string split(const KernelRunReport& r) {
  return fmt::format("engine {} + timing {}", format_seconds(r.functional_seconds),
                     format_seconds(r.timing_seconds));
}

// "parallel replay: 16,273 windows, 0 stops": the windows the run's replay advanced its cores
// in on the host threads, and how often it left them for the serial replay because the host
// gave a thread too little of its core, which tells a busy host's slow run from a slow build.
std::string parallel_part(const KernelRunReport& r) {
  return fmt::format("parallel replay: {} windows, {} stops",
                     format_count(r.timing.parallel_windows),
                     format_count(r.timing.parallel_stops));
}

// Host cores busy on average over a timed case (host processor time over wall time), in
// percent of the host's `cores`.
double busy_percent(double cores_busy, unsigned cores) { return 100 * cores_busy / cores; }

// The row of how busy the host's cores were: the least busy of the timed cases `busy` (name,
// percent), each in the note.
BenchRow busy_row(const std::vector<std::pair<std::string, double>>& busy, unsigned cores) {
  BenchRow row = make_row("host cores busy, least busy timed case", "%", 90);
  row.higher_is_better = true;
  std::string note;
  for (const auto& [what, percent] : busy) {
    row.measured = std::min(row.measured.value_or(percent), percent);
    note += fmt::format("{}{} {:.0f}%", note.empty() ? "" : ", ", what, percent);
  }
  row.note = fmt::format("{}; {} host cores", note, cores);
  return row;
}

// Joins the non-empty parts of a note with "; ".
std::string join_note(std::initializer_list<std::string> parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (part.empty()) continue;
    out += (out.empty() ? "" : "; ") + part;
  }
  return out;
}

std::vector<BenchRow> run_bench(const model::DeviceSpec& device, bool quick, bool heavy, int repeat,
                                std::ostream& progress) {
  const unsigned threads = host_cores();
  std::vector<BenchRow> rows;
  const auto note = [&](const std::string& what) { progress << "bench: " << what << '\n'; };

  // Full fidelity at a decode shape: wall time and the instruction rate per host core.
  const std::int64_t decode_k = quick ? 1024 : 11008;
  note("full fidelity " + shape(16, 4096, decode_k));
  const Repeated decode =
      run_repeated(device, fused_request(16, 4096, decode_k, false, threads), repeat);
  rows.push_back(
      {.name = "full fidelity, fused 64x64x32, " + shape(16, 4096, decode_k),
       .unit = "s",
       .target = quick ? 2.0 * 1024 / 11008 : 2.0,
       .measured = wall(decode.best),
       .note = join_note({quick ? "--quick: K = 1024, target scaled by K" : "", split(decode.best),
                          parallel_part(decode.best), spread(decode.walls)})});
  rows.push_back({.name = "simdgroup instructions per second per host core",
                  .unit = "instr/s",
                  .target = 5e6,
                  .higher_is_better = true,
                  .measured = static_cast<double>(decode.best.timing.instructions) /
                              wall(decode.best) / threads,
                  .note = fmt::format("{} host threads", threads)});
  std::vector<std::pair<std::string, double>> busy{
      {"full " + shape(16, 4096, decode_k), busy_percent(host_cores_busy(decode.best), threads)}};
  note("sampled " + shape(16, 4096, decode_k));
  const KernelRunReport decode_sampled =
      run_kernel(device, fused_request(16, 4096, decode_k, true, threads));
  rows.push_back(sampled_error_row(shape(16, 4096, decode_k), decode_sampled, &decode.best));

  BenchRow big = make_row("full fidelity, fused 64x64x32, " + shape(4096, 4096, 4096), "s", 60);
  BenchRow memory = make_row("peak memory of the process", "B", 2e9);
  std::optional<KernelRunReport> big_report;
  if (heavy) {
    note("full fidelity " + shape(4096, 4096, 4096));
    try {
      big_report = run_kernel(device, fused_request(4096, 4096, 4096, false, threads));
      big.measured = wall(*big_report);
      busy.emplace_back("full " + shape(4096, 4096, 4096),
                        busy_percent(host_cores_busy(*big_report), threads));
    } catch (const sim::TraceLimitExceeded& error) {
      progress << "bench: " << error.what() << '\n';
      big.note = "stopped: its traces exceed the host's trace limit (docs/cli.md, run)";
    }
  } else {
    big.note = "not run: needs --heavy";
  }

  note("sampled " + shape(4096, 4096, 4096));
  const Repeated sampled =
      run_repeated(device, fused_request(4096, 4096, 4096, true, threads), repeat);
  busy.emplace_back("sampled " + shape(4096, 4096, 4096),
                    busy_percent(host_cores_busy(sampled.best), threads));
  rows.push_back(big);
  rows.push_back({.name = "sampled, fused 64x64x32, " + shape(4096, 4096, 4096),
                  .unit = "s",
                  .target = 1,
                  .measured = wall(sampled.best),
                  .note = join_note({fmt::format("{:.3f}% of the work",
                                                 100 * sampled.best.sampling->work_fraction),
                                     split(sampled.best), spread(sampled.walls)})});
  rows.push_back(sampled_error_row(shape(4096, 4096, 4096), sampled.best,
                                   big_report ? &*big_report : nullptr));
  BenchRow sweep = make_row("sampled selection sweep, 5 configurations x 6 rows", "s", 10);
  if (quick) {
    sweep.note = "not run: --quick";
  } else {
    note("sampled selection sweep");
    std::vector<double> walls;
    double fastest_busy = 0;
    for (int i = 0; i < repeat; ++i) {
      const double cpu_start = process_cpu_seconds();
      const Clock::time_point start = Clock::now();
      simulate_guide(device, guide_rows(true), threads);
      walls.push_back(std::chrono::duration<double>(Clock::now() - start).count());
      const double percent =
          busy_percent((process_cpu_seconds() - cpu_start) / walls.back(), threads);
      if (walls.back() <= *std::min_element(walls.begin(), walls.end())) fastest_busy = percent;
    }
    sweep.measured = *std::min_element(walls.begin(), walls.end());
    sweep.note = spread(walls);
    busy.emplace_back("selection sweep", fastest_busy);
  }
  rows.push_back(sweep);
  rows.push_back(busy_row(busy, threads));
  // The largest resident set over every case above.
  memory.measured = static_cast<double>(peak_rss_bytes());
  memory.note = big.measured ? "every case, the 4096^3 full run included"
                             : "every case but the 4096^3 full run";
  rows.push_back(memory);
  return rows;
}

}  // namespace

int run_bench_verb(const std::vector<std::string>& args, Streams streams) {
  CommonFlags common;
  bool quick = false;
  bool heavy = false;
  std::string repeat_text = "1";
  po::options_description options("bench flags");
  // clang-format off
  options.add_options()
      ("quick", po::bool_switch(&quick),
       "a short version: K = 1024 for the full run, no selection sweep")
      ("heavy", po::bool_switch(&heavy), "also run the 4096^3 full-fidelity case")
      ("repeat", po::value(&repeat_text)->default_value("1"),
       "run each timed case N times and report the fastest, with the range");
  // clang-format on
  add_common_flags(options, common);
  parse_flags("bench", args, options);
  if (common.help) {
    print_help(streams.out,
               "marlin-sim bench [--quick] [--heavy] [--repeat N] [--device D] [--json]",
               "Measures the simulator's own speed on the cases of its targets and prints each\n"
               "target beside the measured value and their ratio (<= 1 meets the target).",
               options);
    return 0;
  }
  const auto repeat = static_cast<int>(parse_integer("repeat", repeat_text, 1, 100));
  const model::DeviceSpec device = model::load_device(common.device);
  const std::vector<BenchRow> rows = run_bench(device, quick, heavy, repeat, streams.err);
  if (common.json) {
    nlohmann::json json = nlohmann::json::array();
    for (const BenchRow& row : rows) {
      json.push_back({{"name", row.name},
                      {"unit", row.unit},
                      {"target", row.target},
                      {"higher_is_better", row.higher_is_better},
                      {"measured", row.measured ? nlohmann::json(*row.measured) : nullptr},
                      {"ratio", row.measured ? nlohmann::json(row.ratio()) : nullptr},
                      {"met", row.met()},
                      {"note", row.note}});
    }
    streams.out << nlohmann::json{{"device", device.name}, {"cases", json}}.dump(2) << '\n';
    return 0;
  }
  TextTable table({"case", "target", "measured", "ratio", "met", "note"});
  for (const BenchRow& row : rows) {
    table.add_row({row.name, (row.higher_is_better ? ">= " : "<= ") + show(row, row.target),
                   row.measured ? show(row, *row.measured) : std::string("-"),
                   row.measured ? fmt::format("{:.2f}", row.ratio()) : std::string("-"),
                   row.measured ? (row.met() ? "yes" : "no") : "-", row.note});
  }
  table.print(streams.out);
  return 0;
}

}  // namespace marlin::cli
