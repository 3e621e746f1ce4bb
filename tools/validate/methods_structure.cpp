// Check methods on structure rather than size: simdgroup layout coverage, stripe assignments and
// linearization order, K-parallel decisions, threadgroup-count recommendations, number formats,
// and the agreement of the configuration guide with its dispatch function.
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "fmt/core.h"
#include "model/common/input_error.h"
#include "model/common/join.h"
#include "tools/validate/claims.h"
#include "tools/validate/expression.h"
#include "tools/validate/fp_formats.h"
#include "tools/validate/layout_coverage.h"
#include "tools/validate/method_params.h"
#include "tools/validate/stripe.h"

namespace marlin::validate::detail {
namespace {

using nlohmann::json;

std::string join(const std::vector<std::int64_t>& values) {
  std::string text;
  for (const std::int64_t v : values) append_item(text, ",", std::to_string(v));
  return text;
}

std::optional<std::int64_t> bound_of(const json& value) {
  if (value.is_null()) return std::nullopt;
  if (!value.is_number_integer()) throw InputError("guide bounds must be integers or null");
  return value.get<std::int64_t>();
}

}  // namespace

MethodValue layout_coverage_check(const json& check, const CheckContext& /*context*/) {
  const analytic::Tile tile = parse_tile(param_string(check, "tile"));
  LayoutCoverageQuery q;
  q.tm = tile.tm;
  q.tn = tile.tn;
  q.simdgroups = param_int(check, "simdgroups");
  q.sg_m_tiles = param_int(check, "sg_m_tiles");
  q.sg_n_tiles = param_int(check, "sg_n_tiles");
  q.row_offset = param_string(check, "row_offset");
  q.col_offset = param_string(check, "col_offset");
  const LayoutCoverage c = layout_coverage(q);
  std::string blocks;
  for (std::size_t s = 0; s < c.blocks.size(); ++s) {
    blocks += fmt::format("{}SG{} rows {} cols {}", blocks.empty() ? "" : ", ", s,
                          row_range(c.blocks[s]), col_range(c.blocks[s]));
  }
  const std::string work = fmt::format(
      "{} SG of {}x{} 8x8 tiles ({}x{}) on {}x{}: {}; covered {} of {} outputs ({:.0f}%), "
      "overlap {}, outside {}",
      q.simdgroups, q.sg_m_tiles, q.sg_n_tiles, q.sg_m_tiles * 8, q.sg_n_tiles * 8, q.tm, q.tn,
      blocks, c.covered_elements, c.tile_elements, c.coverage_percent, c.overlapping_elements,
      c.outside_elements);
  const std::string quantity = param_string(check, "quantity");
  if (quantity == "coverage_percent") return number_value(c.coverage_percent, work);
  if (quantity == "row_offsets") return text_value(offset_values(q, true), work);
  if (quantity == "col_offsets") return text_value(offset_values(q, false), work);
  const int s = param_int_or(check, "simd_id", -1);
  if (s < 0 || s >= q.simdgroups) throw InputError("layout_coverage needs a valid simd_id");
  const SimdgroupBlock& block = c.blocks[static_cast<std::size_t>(s)];
  if (quantity == "rows") return text_value(row_range(block), work);
  if (quantity == "cols") return text_value(col_range(block), work);
  throw InputError(fmt::format("unknown layout_coverage quantity '{}'", quantity));
}

MethodValue fused_b_reloads(const json& check, const CheckContext& /*context*/) {
  const int sg_m = param_int(check, "sg_m_tiles");
  const int rows = param_int(check, "sg_grid_rows");
  if (sg_m < 1 || rows < 1) throw InputError("fused_b_reloads needs counts >= 1");
  const double loads = static_cast<double>(sg_m) * rows;
  return number_value(
      loads, fmt::format("a packed uint32 holds 8 K values of one column, i.e. one kt step; the "
                         "fused loop reloads it for each of {} mi blocks in each of {} simdgroup "
                         "rows sharing the column = {} loads per k_block (independent of K_TILES)",
                         sg_m, rows, format_number(loads)));
}

MethodValue stripe_assignment(const json& check, const CheckContext& /*context*/) {
  const StripeProblem problem{param_int(check, "m_tiles"), param_int(check, "n_tiles"),
                              param_int(check, "threadgroups"),
                              param_int_or(check, "k_parallel", 1)};
  const StripeAssignment a = assign_stripes(problem);
  const std::vector<std::int64_t> loads = units_per_threadgroup(a);
  const std::string base = fmt::format(
      "{}x{} tiles x k_parallel {} = {} work units on {} TGs: ceil({}/{}) = {} per TG; units per "
      "TG {}",
      problem.m_tiles, problem.n_tiles, problem.k_parallel, a.total_work, problem.threadgroups,
      a.total_work, problem.threadgroups, a.work_per_tg, join(loads));
  const std::string quantity = param_string(check, "quantity");
  if (quantity == "grid") return text_value(assignment_grid(problem, a), base);
  if (quantity == "total_work") return number_value(static_cast<double>(a.total_work), base);
  if (quantity == "work_per_tg") return number_value(static_cast<double>(a.work_per_tg), base);
  if (quantity == "idle_threadgroups") {
    const auto idle = std::count(loads.begin(), loads.end(), 0);
    return number_value(static_cast<double>(idle), base);
  }
  if (quantity == "load_spread") {
    const auto [lo, hi] = std::minmax_element(loads.begin(), loads.end());
    return number_value(static_cast<double>(*hi - *lo),
                        fmt::format("{}; max - min = {} - {}", base, *hi, *lo));
  }
  if (quantity == "each_unit_once") {
    std::set<std::pair<std::int64_t, std::int64_t>> seen;
    bool once = true;
    for (const ThreadgroupWork& w : a.threadgroups) {
      for (const WorkUnit& u : w.units)
        once = seen.insert({u.tile_linear, u.k_slice}).second && once;
    }
    once = once && static_cast<std::int64_t>(seen.size()) == a.total_work;
    return text_value(once ? "yes" : "no", base);
  }
  const int tg = param_int_or(check, "tg", -1);
  if (tg < 0 || tg >= problem.threadgroups) throw InputError("stripe_assignment needs a valid tg");
  const ThreadgroupWork& w = a.threadgroups[static_cast<std::size_t>(tg)];
  const std::string work = fmt::format("{}; TG {}: [{}, {}) -> tiles {} at {}", base, tg,
                                       w.work_start, w.work_end, tile_list(w), position_list(w));
  if (quantity == "work_start") return number_value(static_cast<double>(w.work_start), work);
  if (quantity == "work_end") return number_value(static_cast<double>(w.work_end), work);
  if (quantity == "tiles") return text_value(tile_list(w), work);
  if (quantity == "positions") return text_value(position_list(w), work);
  throw InputError(fmt::format("unknown stripe_assignment quantity '{}'", quantity));
}

MethodValue round_robin(const json& check, const CheckContext& /*context*/) {
  const auto loads = round_robin_loads(param_int(check, "tiles"), param_int(check, "units"));
  return text_value(join(loads),
                    fmt::format("{} tiles dealt to {} units: {}", param_int(check, "tiles"),
                                param_int(check, "units"), join(loads)));
}

MethodValue linearization_order(const json& check, const CheckContext& /*context*/) {
  const int m_tiles = param_int_or(check, "m_tiles", 3);
  const int n_tiles = param_int_or(check, "n_tiles", 4);
  if (m_tiles < 2 || n_tiles < 2 || m_tiles == n_tiles) {
    throw InputError("linearization_order needs distinct m_tiles, n_tiles >= 2");
  }
  const std::string row = param_string(check, "row");
  const std::string col = param_string(check, "col");
  bool column_major = true;
  bool row_major = true;
  std::string first;
  for (int l = 0; l < m_tiles * n_tiles; ++l) {
    const Bindings b = {{"tile_linear", l}, {"m_tiles", m_tiles}, {"n_tiles", n_tiles}};
    const auto r = static_cast<int>(evaluate_expression(row, b, true));
    const auto c = static_cast<int>(evaluate_expression(col, b, true));
    column_major = column_major && r == l % m_tiles && c == l / m_tiles;
    row_major = row_major && r == l / n_tiles && c == l % n_tiles;
    if (l < 4) first += fmt::format("{}{}->({},{})", first.empty() ? "" : ", ", l, r, c);
  }
  const std::string order = column_major ? "column-major" : row_major ? "row-major" : "other";
  return text_value(order, fmt::format("row = {}, col = {} on {}x{} tiles: {}, ... "
                                       "({}: consecutive indices move along {})",
                                       row, col, m_tiles, n_tiles, first, order,
                                       column_major ? "a column (M)"
                                       : row_major  ? "a row (N)"
                                                    : "neither"));
}

MethodValue shared_operand(const json& check, const CheckContext& /*context*/) {
  const std::string along = param_string(check, "adjacent_along");
  if (along == "m") {
    return text_value("B",
                      "tiles adjacent along M share tile_col, i.e. the same tn columns of B "
                      "(and of the scales); their A rows differ");
  }
  if (along == "n") {
    return text_value("A",
                      "tiles adjacent along N share tile_row, i.e. the same tm rows of A; "
                      "their B columns differ");
  }
  throw InputError(fmt::format("adjacent_along '{}' is not m or n", along));
}

MethodValue k_parallel_decision(const json& check, const CheckContext& context) {
  const std::int64_t m_tiles =
      (param_int(check, "m") + param_int(check, "tile_m") - 1) / param_int(check, "tile_m");
  const std::int64_t n_tiles =
      (param_int(check, "n") + param_int(check, "tile_n") - 1) / param_int(check, "tile_n");
  const std::int64_t k_tiles = param_int(check, "k") / param_int(check, "tile_k");
  const std::int64_t tiles = m_tiles * n_tiles;
  const std::int64_t units = context.device->gpu.cores;
  const int threshold = param_int_or(check, "threshold", 1);
  const bool split = k_tiles > threshold && tiles < units;
  const std::int64_t factor = split ? std::min(units / tiles, k_tiles) : 1;
  const std::string work = fmt::format(
      "{}: m_tiles x n_tiles = {} x {} = {}; K/tile_k = {}; criterion tiles < {} cores is {} "
      "-> k_parallel = {}",
      context.device->name, m_tiles, n_tiles, tiles, k_tiles, units, split ? "true" : "false",
      factor);
  const std::string quantity = param_string(check, "quantity");
  if (quantity == "tiles") return number_value(static_cast<double>(tiles), work);
  if (quantity == "factor") return number_value(static_cast<double>(factor), work);
  if (quantity == "decision") return text_value(factor > 1 ? "split" : "no split", work);
  throw InputError(fmt::format("unknown k_parallel_decision quantity '{}'", quantity));
}

MethodValue threadgroup_recommendation(const json& check, const CheckContext& context) {
  const model::DeviceSpec& device = context.named_device(param_string(check, "device"));
  const int lo = param_int(check, "per_core_min");
  const int hi = param_int(check, "per_core_max");
  return text_value(
      fmt::format("{}-{}", device.gpu.cores * lo, device.gpu.cores * hi),
      fmt::format("{}: {} cores x {}-{} TG/core", device.name, device.gpu.cores, lo, hi));
}

MethodValue fp4_value(const json& check, const CheckContext& /*context*/) {
  const std::string code = param_string(check, "code");
  const double value = fp4_e2m1_value(code);
  return number_value(value,
                      fmt::format("E2M1 {}: sign {}, exponent {}, mantissa {} -> {}", code, code[0],
                                  code.substr(1, 2), code[3], format_number(value)));
}

MethodValue fp16_bits(const json& check, const CheckContext& /*context*/) {
  const std::string quantity = param_string(check, "quantity");
  if (quantity == "fp4_to_fp16") {
    if (!check.contains("code")) throw InputError("fp16_bits fp4_to_fp16 needs code");
    const std::string code = param_string(check, "code");
    const std::string bits = fp4_to_fp16_bits(code);
    return text_value(
        bits,
        fmt::format(
            "E2M1 {} = {} -> binary16 {} = {}", code, format_number(fp4_e2m1_value(code)), bits,
            format_number(fp16_value(static_cast<std::uint16_t>(std::stoul(bits, nullptr, 16))))));
  }
  if (!check.contains("bits")) throw InputError("fp16_bits needs bits");
  const std::string text = param_string(check, "bits");
  const auto bits = static_cast<std::uint16_t>(std::stoul(text, nullptr, 16));
  const std::string work =
      fmt::format("binary16 {}: exponent field {}, mantissa {} -> {}", text,
                  fp16_exponent_field(bits), bits & 0x3FF, format_number(fp16_value(bits)));
  if (quantity == "value") return number_value(fp16_value(bits), work);
  if (quantity == "exponent_field") return number_value(fp16_exponent_field(bits), work);
  throw InputError(fmt::format("unknown fp16_bits quantity '{}'", quantity));
}

MethodValue guide_agreement(const json& check, const CheckContext& /*context*/) {
  struct GuideRow {
    std::int64_t lo;
    std::optional<std::int64_t> hi;
    std::string tile;
  };
  struct SelectRow {
    std::optional<std::int64_t> hi;
    std::string tile;
  };
  std::vector<GuideRow> guide;
  for (const json& row : check["guide"]) {
    if (!row.is_array() || row.size() != 3 || !row[0].is_number_integer() || !row[2].is_string()) {
      throw InputError("guide rows are [m_min, m_max or null, tile]");
    }
    guide.push_back({row[0].get<std::int64_t>(), bound_of(row[1]), row[2].get<std::string>()});
  }
  std::vector<SelectRow> select;
  for (const json& row : check["select_tile"]) {
    if (!row.is_array() || row.size() != 2 || !row[1].is_string()) {
      throw InputError("select_tile rows are [m_max or null, tile]");
    }
    select.push_back({bound_of(row[0]), row[1].get<std::string>()});
  }
  std::string work;
  std::int64_t run_start = -1;
  std::string run_text;
  auto flush = [&](std::int64_t end) {
    if (run_start < 0) return;
    work += fmt::format("{}M {}-{}: {}", work.empty() ? "" : "; ", run_start, end, run_text);
    run_start = -1;
  };
  constexpr std::int64_t kLastM = 4096;
  for (std::int64_t m = 1; m <= kLastM; ++m) {
    std::string g = "-";
    for (const GuideRow& row : guide) {
      if (m >= row.lo && (!row.hi || m <= *row.hi)) {
        g = row.tile;
        break;
      }
    }
    std::string s = "-";
    for (const SelectRow& row : select) {
      if (!row.hi || m <= *row.hi) {
        s = row.tile;
        break;
      }
    }
    const std::string text = fmt::format("guide {}, select_tile {}", g, s);
    if (g != s) {
      if (run_start >= 0 && text != run_text) flush(m - 1);
      if (run_start < 0) {
        run_start = m;
        run_text = text;
      }
    } else {
      flush(m - 1);
    }
  }
  flush(kLastM);
  if (work.empty())
    return text_value("agree", "guide and select_tile pick the same tile for M 1-4096");
  return text_value("disagree", work + " (first matching guide row wins at shared bounds)");
}

}  // namespace marlin::validate::detail
