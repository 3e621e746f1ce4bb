// The tile-sizing analysis's configuration-selection guide (seed tile-sizing-m4max.md,
// section 9), answered by sampled simulation: for each workload row, every recommended
// configuration runs on the device, the fastest is named, and the row's recommendation holds
// if it is the fastest or within the sampling error bound of it.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/analytic/tile.h"
#include "model/device/device_spec.h"

namespace marlin::cli {

// A configuration of the guide: "64x64x32 fused" is marlin_gemm_fused_fp4 at 64x64x32;
// "separate" is the double-buffered marlin_gemm_fp4, which dequantizes into its own B tile.
struct GuideConfig {
  std::string name;    // as the guide writes it
  std::string kernel;  // family
  analytic::Tile tile;
};

// A workload row: a representative shape of its M range (N = K = 4096 for the GEMM rows).
struct GuideRow {
  std::string workload;
  std::string m_range;
  std::int64_t m = 0, n = 0, k = 0;
  std::string recommended;  // a GuideConfig name
};

// The guide's five configurations, its five GEMM workload rows, and (with_attention) its
// softmax*V attention row as a GEMM of M = seq_len 512, N = head_dim 128, K = seq_len.
const std::vector<GuideConfig>& guide_configs();
std::vector<GuideRow> guide_rows(bool with_attention);

struct GuideCell {
  std::string config;
  std::optional<double> seconds;  // nullopt: the device refuses the configuration
  std::string refusal;
};

struct GuideAnswer {
  GuideRow row;
  std::vector<GuideCell> cells;  // one per configuration, in guide_configs() order
  std::string fastest;
  bool holds = false;  // the recommendation is fastest, or within the error bound of it
};

// Runs every configuration on every row (sampled, `host_threads` at once), calling
// progress(done, total) after each.
std::vector<GuideAnswer> simulate_guide(
    const model::DeviceSpec& device, const std::vector<GuideRow>& rows, unsigned host_threads,
    const std::function<void(std::size_t, std::size_t)>& progress = {});

void write_guide_markdown(std::ostream& out, const std::vector<GuideAnswer>& answers);
// One line per row: recommended, fastest, and whether the recommendation holds.
void print_guide_summary(std::ostream& out, const std::vector<GuideAnswer>& answers);
nlohmann::json guide_json(const std::vector<GuideAnswer>& answers);

}  // namespace marlin::cli
