#include "tools/cli/run_report.h"

#include <fmt/format.h>

#include "model/common/join.h"
#include "model/timing/cycles.h"
#include "sim/runtime/batch_lane.h"
#include "tools/cli/format.h"
#include "tools/cli/occupancy_report.h"
#include "tools/cli/table.h"

namespace marlin::cli {
namespace {

std::string dims(const sim::Dim3& d) {
  if (d.z != 1) return fmt::format("{}x{}x{}", d.x, d.y, d.z);
  if (d.y != 1) return fmt::format("{}x{}", d.x, d.y);
  return std::to_string(d.x);
}

// Share of the whole run's slot-cycles, in percent.
double share(std::int64_t part, std::int64_t total) {
  return total == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(total);
}

double roofline_percent(const KernelRunReport& r) {
  return r.timing.seconds <= 0 ? 0.0 : 100.0 * r.roofline.lower_bound_time_s / r.timing.seconds;
}

// Simdgroup instructions the simulator replayed (a sampled run replays fewer than it predicts).
std::int64_t simulated_instructions(const KernelRunReport& r) {
  return r.sampling ? r.sampling->simulated_instructions : r.timing.instructions;
}

double instructions_per_second(const KernelRunReport& r) {
  const double wall = r.functional_seconds + r.timing_seconds;
  return wall <= 0 ? 0.0 : static_cast<double>(simulated_instructions(r)) / wall;
}

std::string k_list(const std::vector<std::int64_t>& ks) {
  std::string out;
  for (const std::int64_t k : ks) append_item(out, " and ", std::to_string(k));
  return out;
}

// ", L2 of 24 and 48 KiB (the full run's L2 estimated to miss 22% more lines)" when the K
// samples ran with less than the device's L2 (sample_l2.h).
std::string scaled_l2(const SamplingReport& s) {
  std::string sizes;
  bool scaled = false;
  for (const std::int64_t bytes : s.l2_bytes) {
    scaled = scaled || bytes != s.device_l2_bytes;
    append_item(sizes, " and ", std::to_string(bytes / 1024));
  }
  if (!scaled) return {};
  return fmt::format(", L2 of {} KiB (the full run's L2 estimated to miss {:.0f}% more lines)",
                     sizes, 100 * (s.l2_overflow ? s.l2_overflow->added_misses : 0.0));
}

// How a DRAM-bound launch was sampled (sampling.h): the slice at its share of the bandwidth,
// or the whole grid in its place; nothing when the launch is not DRAM-bound.
std::string dram_bound(const SamplingReport& s) {
  if (s.dram_share < 1) {
    return fmt::format(", DRAM-bound: replayed with {:.2f}% of the DRAM bandwidth",
                       100 * s.dram_share);
  }
  if (s.dram_bound_whole) return ", DRAM-bound: its slice outran DRAM, so the whole grid ran";
  return {};
}

// " (the engine ran 10 of its 206 threadgroups, the others by translation)" (sampling.h).
std::string translated(const SamplingReport& s) {
  if (s.translated_threadgroups == 0) return {};
  return fmt::format(" (the engine ran {} of its {} threadgroups, the others by translation)",
                     s.simulated_threadgroups - s.translated_threadgroups,
                     s.simulated_threadgroups);
}

void print_sampling(std::ostream& out, const SamplingReport& s, std::int64_t k) {
  out << fmt::format(
      "\nsampled{}: {} of {} cores ({:.2f}% of the threadgroups) at K = {}{}{}{}; {:.2f}% of the "
      "full run's work{}; cycles within {:.0f}% of a full run on the tested shapes, up to "
      "{:.1f}% off on others measured (docs/sampling.md); occupancy, utilizations, hit rates and "
      "the breakdown are the sampled run's\n",
      s.precision == SamplePrecision::kPrecise ? " (precise)" : "", s.cores, s.device_cores,
      100 * s.share, k_list(s.k_values),
      s.k_values.size() > 1 ? fmt::format(", extrapolated to {}", k) : std::string(), scaled_l2(s),
      dram_bound(s), 100 * s.work_fraction, translated(s), 100 * s.error_bound,
      100 * s.largest_measured_error);
  if (s.precise_runs_whole) {
    out << fmt::format(
        "sampled: fast sampling was measured up to {:.1f}% off on sliced grids like this one "
        "(several threadgroups per core, at most {}); --sample-precise simulates the whole grid "
        "(docs/sampling.md, \"Precise sampling\")\n",
        100 * kLargestMeasuredSlicedError, kPreciseWholeGrid);
  }
}

nlohmann::json sampling_json(const SamplingReport& s) {
  return {
      {"precision", s.precision == SamplePrecision::kPrecise ? "precise" : "fast"},
      {"k_values", s.k_values},
      {"l2_bytes", s.l2_bytes},
      {"l2_overflow", s.l2_overflow ? nlohmann::json{{"share", s.l2_overflow->share},
                                                     {"added_misses", s.l2_overflow->added_misses}}
                                    : nlohmann::json(nullptr)},
      {"cores", s.cores},
      {"device_cores", s.device_cores},
      {"threadgroup_share", s.share},
      {"work_fraction", s.work_fraction},
      {"simulated_instructions", s.simulated_instructions},
      {"simulated_threadgroups", s.simulated_threadgroups},
      {"translated_threadgroups", s.translated_threadgroups},
      {"dram_share", s.dram_share},
      {"error_bound", s.error_bound},
      {"largest_measured_error", s.largest_measured_error},
      {"precise_runs_whole", s.precise_runs_whole},
      {"dram_bound_whole", s.dram_bound_whole}};
}

void print_trace(std::ostream& out, const TraceReport& trace) {
  const timing::ChromeTraceSummary& s = trace.summary;
  out << fmt::format(
      "\ntrace: {}: {} events ({} threadgroup, {} simdgroup, {} counter, {} launch, {} "
      "metadata)\n",
      trace.path, format_count(s.events), format_count(s.threadgroup_events),
      format_count(s.simdgroup_events), format_count(s.counter_events),
      format_count(s.launch_events), format_count(s.metadata_events));
  if (s.omitted_events > 0) {
    out << fmt::format("  sampled: {} of {} cores, simdgroup tracks of {}; {} events omitted\n",
                       s.cores_traced, s.cores,
                       trace.options.threadgroup_stride == 1
                           ? std::string("every threadgroup")
                           : fmt::format("1 threadgroup in {}", trace.options.threadgroup_stride),
                       format_count(s.omitted_events));
  }
  if (s.truncated) {
    out << fmt::format(
        "  truncated by --trace-max-events {}: {} events from cycle {} on "
        "dropped\n",
        format_count(trace.options.max_events), format_count(s.dropped_events),
        format_count(s.truncated_at.count()));
  }
}

nlohmann::json trace_json(const TraceReport& trace) {
  const timing::ChromeTraceSummary& s = trace.summary;
  return {{"path", trace.path},
          {"events", s.events},
          {"metadata_events", s.metadata_events},
          {"launch_events", s.launch_events},
          {"threadgroup_events", s.threadgroup_events},
          {"simdgroup_events", s.simdgroup_events},
          {"counter_events", s.counter_events},
          {"cores", s.cores},
          {"cores_traced", s.cores_traced},
          {"threadgroup_stride", trace.options.threadgroup_stride},
          {"omitted_events", s.omitted_events},
          {"max_events", trace.options.max_events},
          {"truncated", s.truncated},
          {"dropped_events", s.dropped_events},
          {"truncated_at_cycle", s.truncated ? s.truncated_at.count() : 0}};
}

}  // namespace

void print_run_report(std::ostream& out, const model::DeviceSpec& device,
                      const KernelRunReport& r) {
  const timing::TimingResult& t = r.timing;
  out << fmt::format("{} on {}: M={} N={} K={}, weights {}\n\n", r.kernel.metal_name, device.name,
                     r.problem.m, r.problem.n, r.problem.k, r.weights);
  TextTable dispatches({"dispatch", "grid", "threads", "TG memory", "TGs/core", "occupancy",
                        "bound by", "cycles", "waves", "last wave TGs"});
  for (std::size_t i = 0; i < r.dispatches.size(); ++i) {
    const DispatchReport& d = r.dispatches[i];
    const timing::LaunchResult& l = t.launches.at(i);
    dispatches.add_row({d.kernel, dims(d.threadgroups), dims(d.threads),
                        format_count(static_cast<std::int64_t>(d.threadgroup_memory_bytes)),
                        format_count(d.occupancy.resident_threadgroups),
                        format_percent(d.occupancy.occupancy_percent),
                        binding_names(d.occupancy.binding), format_count(l.cycles.count()),
                        std::to_string(l.waves), format_count(l.last_wave_threadgroups)});
  }
  dispatches.print(out);
  const double max_sg = device.limits.max_simdgroups_per_core;
  out << '\n';
  print_key_values(
      out,
      {{"predicted time", fmt::format("{} cycles = {}", format_count(t.total_cycles.count()),
                                      format_seconds(t.seconds))},
       {"achieved", fmt::format("{}, DRAM {}", format_rate(t.achieved_flops_per_s, "FLOP/s"),
                                format_rate(t.dram_bytes_per_s, "B/s"))},
       {"roofline",
        fmt::format("{:.2f} FLOP/B, {}-bound; lower bound {} = {:.1f}% of the "
                    "predicted time",
                    r.roofline.intensity, analytic::bound_name(r.roofline.bound),
                    format_seconds(r.roofline.lower_bound_time_s), roofline_percent(r))},
       {"achieved occupancy",
        fmt::format("{:.1f} simdgroups per core ({})", t.achieved_simdgroups_per_core,
                    format_percent(100.0 * t.achieved_simdgroups_per_core / max_sg))},
       {"hit rates",
        fmt::format("L1 {}, L2 {}, SLC {}", format_percent(100 * t.hit_rates.l1),
                    format_percent(100 * t.hit_rates.l2), format_percent(100 * t.hit_rates.slc))},
       {"utilization",
        fmt::format(
            "ALU {}, matrix {}, threadgroup memory {}, L1 {}, L1-L2 link {}, L2 {}, "
            "DRAM {}",
            format_percent(100 * t.utilization.alu), format_percent(100 * t.utilization.matrix),
            format_percent(100 * t.utilization.threadgroup_memory),
            format_percent(100 * t.utilization.l1), format_percent(100 * t.utilization.core_link),
            format_percent(100 * t.utilization.l2), format_percent(100 * t.utilization.dram))}});
  out << "\nwhere the time goes (simdgroup-slot cycles, all cores)\n";
  TextTable breakdown({"state", "slot cycles", "share"});
  const std::int64_t total = t.breakdown.total();
  for (std::size_t i = 0; i < timing::kStallClassCount; ++i) {
    const auto stall = static_cast<timing::StallClass>(i);
    breakdown.add_row({std::string(timing::stall_class_name(stall)),
                       format_count(t.breakdown[stall]),
                       format_percent(share(t.breakdown[stall], total))});
  }
  breakdown.print(out);
  if (r.check_error) {
    out << fmt::format(
        "\ncheck: relative Frobenius error {:.3g} against the double-precision "
        "reference (bound {:g}), {} unwritten outputs: {}\n",
        *r.check_error, r.check_bound, r.unwritten,
        *r.check_error < r.check_bound && r.unwritten == 0 ? "pass" : "FAIL");
  }
  if (r.trace) print_trace(out, *r.trace);
  if (r.sampling) print_sampling(out, *r.sampling, r.problem.k);
  out << fmt::format(
      "\nsimulator: {} simdgroup instructions in {} (engine{}) + {} (timing{}): {}; {} "
      "simulated; {:.0f}x slower than the device; host CPU {}, {:.2f} cores busy\n",
      format_count(simulated_instructions(r)), format_seconds(r.functional_seconds),
      r.translated_threadgroups > 0
          ? fmt::format("; the traces of {} of its {} threadgroups by translation{}",
                        r.translated_threadgroups, r.threadgroups,
                        r.batched_threadgroups > 0
                            ? fmt::format(", {} of them run {} at a time", r.batched_threadgroups,
                                          sim::kBatchWidth)
                            : std::string())
          : std::string(),
      format_seconds(r.timing_seconds),
      r.streamed ? " after the engine's workers, which the replay ran beside" : "",
      format_rate(instructions_per_second(r), "instr/s"),
      format_rate(static_cast<double>(t.total_cycles.count()) /
                      std::max(1e-9, r.functional_seconds + r.timing_seconds),
                  "cycles/s"),
      (r.functional_seconds + r.timing_seconds) / std::max(1e-12, t.seconds),
      format_seconds(r.host_cpu_seconds), host_cores_busy(r));
}

nlohmann::json run_report_json(const model::DeviceSpec& device, const KernelRunReport& r) {
  const timing::TimingResult& t = r.timing;
  nlohmann::json dispatches = nlohmann::json::array();
  for (std::size_t i = 0; i < r.dispatches.size(); ++i) {
    const DispatchReport& d = r.dispatches[i];
    const timing::LaunchResult& l = t.launches.at(i);
    dispatches.push_back({{"kernel", d.kernel},
                          {"threadgroups", {d.threadgroups.x, d.threadgroups.y, d.threadgroups.z}},
                          {"threads", {d.threads.x, d.threads.y, d.threads.z}},
                          {"threadgroup_memory_bytes", d.threadgroup_memory_bytes},
                          {"resident_threadgroups_per_core", d.occupancy.resident_threadgroups},
                          {"occupancy_percent", d.occupancy.occupancy_percent},
                          {"bound_by", binding_names(d.occupancy.binding)},
                          {"cycles", l.cycles.count()},
                          {"overhead_cycles", l.overhead.count()},
                          {"waves", l.waves},
                          {"last_wave_threadgroups", l.last_wave_threadgroups},
                          {"tail_cycles", l.tail_cycles.count()},
                          {"slot_cycles", l.slot_cycles},
                          {"achieved_simdgroups_per_core", l.achieved_simdgroups_per_core}});
  }
  nlohmann::json breakdown = nlohmann::json::object();
  for (std::size_t i = 0; i < timing::kStallClassCount; ++i) {
    const auto stall = static_cast<timing::StallClass>(i);
    breakdown[std::string(timing::stall_class_name(stall))] = t.breakdown[stall];
  }
  nlohmann::json json = {
      {"device", device.name},
      {"kernel", r.kernel.metal_name},
      {"m", r.problem.m},
      {"n", r.problem.n},
      {"k", r.problem.k},
      {"weights", r.weights},
      {"dispatches", dispatches},
      {"cycles", t.total_cycles.count()},
      {"seconds", t.seconds},
      {"achieved_flops_per_s", t.achieved_flops_per_s},
      {"dram_bytes_per_s", t.dram_bytes_per_s},
      {"roofline_lower_bound_s", r.roofline.lower_bound_time_s},
      {"percent_of_roofline", roofline_percent(r)},
      {"bound", analytic::bound_name(r.roofline.bound)},
      {"achieved_simdgroups_per_core", t.achieved_simdgroups_per_core},
      {"breakdown_slot_cycles", breakdown},
      {"utilization",
       {{"alu", t.utilization.alu},
        {"matrix", t.utilization.matrix},
        {"threadgroup_memory", t.utilization.threadgroup_memory},
        {"l1", t.utilization.l1},
        {"core_link", t.utilization.core_link},
        {"l2", t.utilization.l2},
        {"dram", t.utilization.dram}}},
      {"hit_rates", {{"l1", t.hit_rates.l1}, {"l2", t.hit_rates.l2}, {"slc", t.hit_rates.slc}}},
      {"simulator",
       {{"instructions", simulated_instructions(r)},
        {"predicted_instructions", t.instructions},
        {"engine_seconds", r.functional_seconds},
        {"timing_seconds", r.timing_seconds},
        {"host_cpu_seconds", r.host_cpu_seconds},
        {"host_cores_busy", host_cores_busy(r)},
        {"streamed", r.streamed},
        {"threadgroups", r.threadgroups},
        {"translated_threadgroups", r.translated_threadgroups},
        {"batched_threadgroups", r.batched_threadgroups},
        {"instructions_per_second", instructions_per_second(r)},
        {"parallel_windows", t.parallel_windows},
        {"partition_moves", t.partition_moves},
        {"parallel_stops", t.parallel_stops}}},
  };
  if (r.check_error) {
    json["check"] = {{"relative_frobenius_error", *r.check_error},
                     {"bound", r.check_bound},
                     {"unwritten", r.unwritten},
                     {"pass", *r.check_error < r.check_bound && r.unwritten == 0}};
  }
  if (r.trace) json["trace"] = trace_json(*r.trace);
  if (r.sampling) json["sampling"] = sampling_json(*r.sampling);
  return json;
}

}  // namespace marlin::cli
