#include "tools/cli/selection_guide.h"

#include <fmt/format.h>

#include <ostream>

#include "model/common/input_error.h"
#include "tools/cli/format.h"
#include "tools/cli/kernel_run.h"
#include "tools/cli/parallel_jobs.h"

namespace marlin::cli {
namespace {

constexpr std::uint64_t kGuideSeed = 1;

GuideCell run_cell(const model::DeviceSpec& device, const GuideRow& row,
                   const GuideConfig& config) {
  GuideCell cell;
  cell.config = config.name;
  KernelRunRequest request;
  request.kernel = config.kernel;
  request.tile = config.tile;
  request.problem = {.m = row.m, .n = row.n, .k = row.k};
  request.seed = kGuideSeed;
  request.sample = true;
  try {
    cell.seconds = run_kernel(device, request).timing.seconds;
  } catch (const InputError& error) {
    cell.refusal = error.what();
  }
  return cell;
}

void decide(GuideAnswer& answer) {
  const GuideCell* best = nullptr;
  const GuideCell* recommended = nullptr;
  for (const GuideCell& cell : answer.cells) {
    if (!cell.seconds) continue;
    if (best == nullptr || *cell.seconds < *best->seconds) best = &cell;
    if (cell.config == answer.row.recommended) recommended = &cell;
  }
  answer.fastest = best != nullptr ? best->config : std::string("none");
  answer.holds = best != nullptr && recommended != nullptr &&
                 *recommended->seconds <= *best->seconds * (1 + kSampledErrorBound);
}

}  // namespace

const std::vector<GuideConfig>& guide_configs() {
  static const std::vector<GuideConfig> kConfigs = {
      {"32x128x32 fused", "marlin_gemm_fused_fp4", {32, 128, 32}},
      {"64x64x32 fused", "marlin_gemm_fused_fp4", {64, 64, 32}},
      {"64x64x32 separate", "marlin_gemm_fp4", {64, 64, 32}},
      {"128x64x16 separate", "marlin_gemm_fp4", {128, 64, 16}},
      {"128x128x16 fused", "marlin_gemm_fused_fp4", {128, 128, 16}},
  };
  return kConfigs;
}

std::vector<GuideRow> guide_rows(bool with_attention) {
  std::vector<GuideRow> rows = {
      {"Decode (single token)", "1-8", 1, 4096, 4096, "32x128x32 fused"},
      {"Small batch decode", "8-32", 16, 4096, 4096, "64x64x32 fused"},
      {"Prefill (short)", "32-128", 64, 4096, 4096, "64x64x32 separate"},
      {"Prefill (long)", "128-512", 256, 4096, 4096, "128x64x16 separate"},
      {"Large batch / training", "512+", 1024, 4096, 4096, "128x128x16 fused"},
  };
  if (with_attention) {
    rows.push_back({"Attention (softmax*V)", "seq_len", 512, 128, 512, "32x128x32 fused"});
  }
  return rows;
}

std::vector<GuideAnswer> simulate_guide(
    const model::DeviceSpec& device, const std::vector<GuideRow>& rows, unsigned host_threads,
    const std::function<void(std::size_t, std::size_t)>& progress) {
  const std::vector<GuideConfig>& configs = guide_configs();
  std::vector<GuideAnswer> answers(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    answers[r].row = rows[r];
    answers[r].cells.resize(configs.size());
  }
  run_parallel_jobs(
      rows.size() * configs.size(), host_threads,
      [&](std::size_t i) {
        const std::size_t r = i / configs.size();
        answers[r].cells[i % configs.size()] =
            run_cell(device, rows[r], configs[i % configs.size()]);
      },
      progress);
  for (GuideAnswer& answer : answers) decide(answer);
  return answers;
}

void write_guide_markdown(std::ostream& out, const std::vector<GuideAnswer>& answers) {
  out << "| workload | M | shape simulated |";
  for (const GuideConfig& config : guide_configs()) out << ' ' << config.name << " |";
  out << " recommended | fastest | holds |\n|---|---|---|";
  for (std::size_t i = 0; i < guide_configs().size(); ++i) out << "---:|";
  out << "---|---|---|\n";
  for (const GuideAnswer& a : answers) {
    out << fmt::format("| {} | {} | {}x{}x{} |", a.row.workload, a.row.m_range, a.row.m, a.row.n,
                       a.row.k);
    for (const GuideCell& cell : a.cells) {
      out << ' ' << (cell.seconds ? format_seconds(*cell.seconds) : std::string("refused")) << " |";
    }
    out << fmt::format(" {} | {} | {} |\n", a.row.recommended, a.fastest,
                       a.holds ? "holds" : "does not hold");
  }
}

void print_guide_summary(std::ostream& out, const std::vector<GuideAnswer>& answers) {
  std::size_t holding = 0;
  for (const GuideAnswer& a : answers) holding += a.holds ? 1 : 0;
  out << fmt::format("configuration selection guide by simulation: {} of {} rows hold\n", holding,
                     answers.size());
  for (const GuideAnswer& a : answers) {
    out << fmt::format("  {} (M {}, simulated M={}): recommended {}, fastest {}: {}\n",
                       a.row.workload, a.row.m_range, a.row.m, a.row.recommended, a.fastest,
                       a.holds ? "holds" : "does not hold");
  }
}

nlohmann::json guide_json(const std::vector<GuideAnswer>& answers) {
  nlohmann::json rows = nlohmann::json::array();
  for (const GuideAnswer& a : answers) {
    nlohmann::json cells = nlohmann::json::object();
    for (const GuideCell& cell : a.cells) {
      cells[cell.config] = cell.seconds ? nlohmann::json(*cell.seconds) : nlohmann::json(nullptr);
    }
    rows.push_back({{"workload", a.row.workload},
                    {"m_range", a.row.m_range},
                    {"m", a.row.m},
                    {"n", a.row.n},
                    {"k", a.row.k},
                    {"seconds", cells},
                    {"recommended", a.row.recommended},
                    {"fastest", a.fastest},
                    {"holds", a.holds}});
  }
  return {{"method", "sampled simulation (docs/sampling.md)"},
          {"error_bound", kSampledErrorBound},
          {"largest_measured_error", kLargestMeasuredSampledError},
          {"rows", rows}};
}

}  // namespace marlin::cli
