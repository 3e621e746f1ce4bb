// Check methods on tile configurations, from the analytic model: budgets, simdgroup layouts,
// arithmetic intensity, occupancy, GPU-wide parallelism, waves.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "fmt/core.h"
#include "model/analytic/budget.h"
#include "model/analytic/intensity.h"
#include "model/analytic/occupancy.h"
#include "model/analytic/waves.h"
#include "model/common/input_error.h"
#include "model/common/join.h"
#include "model/device/device_math.h"
#include "tools/validate/claims.h"
#include "tools/validate/method_params.h"

namespace marlin::validate::detail {
namespace {

using analytic::KernelVariant;
using nlohmann::json;

constexpr int kDefaultThreads = 128;  // 4 simdgroups, every kernel of the documents

const model::DeviceSpec& device_of(const json& check, const CheckContext& context) {
  if (check.contains("device")) return context.named_device(check["device"].get<std::string>());
  return *context.device;
}

KernelVariant parse_variant(const std::string& name) {
  if (name == "separate") return KernelVariant::kDoubleBufferedSeparate;
  if (name == "fused") return KernelVariant::kFusedDequant;
  throw InputError(fmt::format("kernel variant '{}' is not separate or fused", name));
}

analytic::BudgetResult budget_of(const analytic::Tile& tile, KernelVariant variant,
                                 const model::LimitsSpec& limits, int simdgroups = 4) {
  analytic::BudgetOptions options;
  options.simdgroups = simdgroups;
  return analytic::threadgroup_memory_budget(tile, variant, options, limits);
}

std::string budget_work(const analytic::Tile& tile, const analytic::BudgetResult& b) {
  std::string parts;
  for (const analytic::BudgetComponent& c : b.components) {
    parts += fmt::format("{}{} [{}] = {} B", parts.empty() ? "" : " + ", c.name, c.shape, c.bytes);
  }
  return fmt::format("{} {}: {} = {} B ({:.1f}% of {} B)", analytic::tile_name(tile),
                     analytic::kernel_variant_name(b.variant), parts, b.total_bytes,
                     b.percent_of_limit, b.limit_bytes);
}

analytic::WeightSpec weights_of(const std::string& name, int group_size) {
  analytic::WeightSpec weights;
  weights.format = analytic::parse_weight_format(name);
  if (group_size > 0) {
    weights.scales = analytic::ScaleMode::kPerGroup;
    weights.group_size = group_size;
  }
  return weights;
}

// Occupancy of a 128-thread (or `threads`) threadgroup with `bytes` of threadgroup memory.
struct Resident {
  analytic::OccupancyResult result;
  std::string work;
};

Resident resident(const model::DeviceSpec& device, std::int64_t bytes, int threads) {
  analytic::OccupancyQuery query;
  query.threads_per_threadgroup = threads;
  query.threadgroup_memory_bytes = bytes;
  Resident r{analytic::evaluate_occupancy(query, analytic::occupancy_spec_of(device)), ""};
  if (r.result.refused) {
    r.work = fmt::format("{}: refused: {}", device.name, r.result.refusal_reason);
    return r;
  }
  std::string binding;
  for (const analytic::LimitKind kind : r.result.binding) {
    append_item(binding, "+", analytic::limit_name(kind));
  }
  std::string detail;
  if (r.result.pool) {
    detail = fmt::format(" (pool: floor({} / ({} B + {} B registers)); {} registers/thread{})",
                         r.result.pool->available_bytes, r.result.pool->threadgroup_memory_bytes,
                         r.result.pool->register_bytes, r.result.registers_used.value_or(0),
                         r.result.registers_assumed ? " assumed by the profile" : "");
  }
  r.work = fmt::format("{}: {} threads, {} B -> {} TG/core, bound by {}{}", device.name, threads,
                       bytes, r.result.resident_threadgroups, binding, detail);
  return r;
}

std::int64_t config_bytes(const json& check, const model::DeviceSpec& device) {
  if (check.contains("threadgroup_memory_bytes"))
    return param_int(check, "threadgroup_memory_bytes");
  if (!check.contains("tile") || !check.contains("variant")) {
    throw InputError("needs tile and variant, or threadgroup_memory_bytes");
  }
  return budget_of(parse_tile(param_string(check, "tile")),
                   parse_variant(param_string(check, "variant")), device.limits)
      .total_bytes;
}

}  // namespace

MethodValue budget(const json& check, const CheckContext& context) {
  const analytic::Tile tile = parse_tile(param_string(check, "tile"));
  const KernelVariant variant = parse_variant(param_string(check, "variant"));
  const analytic::BudgetResult b =
      budget_of(tile, variant, context.device->limits, param_int_or(check, "simdgroups", 4));
  const std::string part = param_string(check, "part");
  const std::string work = fmt::format("{}: {}", part, budget_work(tile, b));
  const double a = static_cast<double>(b.components.at(0).bytes);
  const double bb = static_cast<double>(b.components.at(1).bytes);
  const bool separate = variant == KernelVariant::kDoubleBufferedSeparate;
  if (part == "a") return number_value(a, work);
  if (part == "b") return number_value(bb, work);
  if (part == "a_per_buffer") return number_value(separate ? a / 2 : a, work);
  if (part == "b_per_buffer") return number_value(separate ? bb / 2 : bb, work);
  if (part == "per_buffer") return number_value(separate ? (a + bb) / 2 : a + bb, work);
  if (part == "b1_offset") return number_value(a + (separate ? bb / 2 : 0), work);
  if (part == "total") return number_value(static_cast<double>(b.total_bytes), work);
  if (part == "percent") return number_value(b.percent_of_limit, work);
  if (part == "headroom") return number_value(static_cast<double>(b.headroom_bytes), work);
  if (part == "fits") return text_value(b.refused ? "no" : "yes", work);
  throw InputError(fmt::format("unknown budget part '{}'", part));
}

MethodValue budget_ratio(const json& check, const CheckContext& context) {
  const analytic::Tile tile = parse_tile(param_string(check, "tile"));
  const auto num =
      budget_of(tile, parse_variant(param_string(check, "numerator")), context.device->limits);
  const auto den =
      budget_of(tile, parse_variant(param_string(check, "denominator")), context.device->limits);
  const double ratio = static_cast<double>(num.total_bytes) / static_cast<double>(den.total_bytes);
  return number_value(ratio, fmt::format("{} {} B / {} B = {:.3f}", analytic::tile_name(tile),
                                         num.total_bytes, den.total_bytes, ratio));
}

MethodValue sg_layout(const json& check, const CheckContext& context) {
  const analytic::Tile tile = parse_tile(param_string(check, "tile"));
  const analytic::SgLayout layout{param_int(check, "rows"), param_int(check, "cols")};
  const int simd = context.device->gpu.simd_width;
  const analytic::LayoutResult r = analytic::analyze_layout(tile, layout, simd);
  const std::string quantity = param_string(check, "quantity");
  const std::string base =
      fmt::format("{} on {}x{} simdgroups: {}x{} block per simdgroup = {}x{} 8x8 accumulators = {}",
                  analytic::tile_name(tile), layout.rows, layout.cols, r.block_rows, r.block_cols,
                  r.block_rows / 8, r.block_cols / 8, r.accumulators);
  if (quantity == "block")
    return text_value(fmt::format("{}x{}", r.block_rows, r.block_cols), base);
  if (quantity == "sg_m_tiles") return number_value(r.block_rows / 8, base);
  if (quantity == "sg_n_tiles") return number_value(r.block_cols / 8, base);
  if (quantity == "accumulators") return number_value(r.accumulators, base);
  if (quantity == "bytes_per_thread_fp16") {
    return number_value(r.bytes_per_thread_fp16,
                        fmt::format("{}; x 64 x 2 B / {} lanes = {} B", base, simd,
                                    format_number(r.bytes_per_thread_fp16)));
  }
  if (quantity == "bytes_per_thread_fp32") {
    return number_value(r.bytes_per_thread_fp32,
                        fmt::format("{}; x 64 x 4 B / {} lanes = {} B", base, simd,
                                    format_number(r.bytes_per_thread_fp32)));
  }
  if (quantity == "k_subtiles") {
    return number_value(tile.tk / 8, fmt::format("tk / 8 = {} / 8 = {}", tile.tk, tile.tk / 8));
  }
  if (quantity == "mma_per_iteration") {
    return number_value(static_cast<double>(r.mma_per_iteration),
                        fmt::format("{}; x {} K sub-tiles = {} MMAs per simdgroup", base,
                                    tile.tk / 8, r.mma_per_iteration));
  }
  if (quantity == "flops_per_iteration_sg") {
    const double flops = static_cast<double>(r.mma_per_iteration * analytic::kFlopsPerMma);
    return number_value(flops, fmt::format("{} MMAs x 1024 FLOPs = {} FLOPs per simdgroup ({} per "
                                           "threadgroup)",
                                           r.mma_per_iteration, format_number(flops),
                                           r.threadgroup_flops_per_iteration));
  }
  if (quantity == "register_share_fp32_percent") {
    const double budget_bytes = context.device->limits.max_registers_per_thread * 4.0;
    const double share = 100.0 * r.bytes_per_thread_fp32 / budget_bytes;
    return number_value(share, fmt::format("{}; {} B fp32 accumulators / ({} registers x 4 B) = "
                                           "{:.0f}% of a thread's registers",
                                           base, format_number(r.bytes_per_thread_fp32),
                                           context.device->limits.max_registers_per_thread, share));
  }
  throw InputError(fmt::format("unknown sg_layout quantity '{}'", quantity));
}

MethodValue sg_block(const json& check, const CheckContext& context) {
  const int sg_m = param_int(check, "sg_m_tiles");
  const int sg_n = param_int(check, "sg_n_tiles");
  if (sg_m < 1 || sg_n < 1) throw InputError("sg_m_tiles and sg_n_tiles must be at least 1");
  const int simd = context.device->gpu.simd_width;
  const double acc = static_cast<double>(sg_m) * sg_n;
  const std::string quantity = param_string(check, "quantity");
  const std::string base = fmt::format("{} x {} = {} accumulators of 8x8", sg_m, sg_n, acc);
  if (quantity == "accumulators") return number_value(acc, base);
  if (quantity == "bytes_total_fp16") {
    return number_value(acc * 64 * 2, fmt::format("{} x 64 halves x 2 B = {} B per simdgroup", acc,
                                                  format_number(acc * 128)));
  }
  if (quantity == "bytes_per_thread_fp16") {
    const double v = acc * 64 * 2 / simd;
    return number_value(v,
                        fmt::format("{}; x 128 B / {} lanes = {} B", base, simd, format_number(v)));
  }
  if (quantity == "bytes_per_thread_fp32") {
    const double v = acc * 64 * 4 / simd;
    return number_value(v,
                        fmt::format("{}; x 256 B / {} lanes = {} B", base, simd, format_number(v)));
  }
  throw InputError(fmt::format("unknown sg_block quantity '{}'", quantity));
}

MethodValue iteration_intensity(const json& check, const CheckContext& /*context*/) {
  const analytic::Tile tile = parse_tile(param_string(check, "tile"));
  const std::string format = param_string(check, "weights");
  const int group = param_int_or(check, "group_size", 0);
  const analytic::IterationIntensity r =
      analytic::iteration_intensity(tile, weights_of(format, group));
  const std::string quantity = param_string(check, "quantity");
  const double bits = analytic::weight_bits(analytic::parse_weight_format(format));
  const std::string work =
      param_string(check, "quantity") + ": " +
      fmt::format(
          "{} {}: 2*{}*{}*{} = {} FLOPs / (A {}*{}*2 = {} B + B {}*{}*{}/8 = {} B{}) = {:.2f} "
          "FLOP/B",
          analytic::tile_name(tile), format, tile.tm, tile.tn, tile.tk, r.flops, tile.tm, tile.tk,
          format_number(r.a_bytes), tile.tk, tile.tn, bits, format_number(r.b_bytes),
          group > 0 ? fmt::format(" + scales {} B", format_number(r.scale_bytes)) : "",
          group > 0 ? r.intensity : r.intensity_without_scales);
  if (quantity == "flops") return number_value(static_cast<double>(r.flops), work);
  if (quantity == "a_bytes") return number_value(r.a_bytes, work);
  if (quantity == "b_bytes") return number_value(r.b_bytes, work);
  if (quantity == "total_bytes") return number_value(r.total_bytes, work);
  if (quantity == "intensity") {
    return number_value(group > 0 ? r.intensity : r.intensity_without_scales, work);
  }
  throw InputError(fmt::format("unknown iteration_intensity quantity '{}'", quantity));
}

MethodValue weights_ratio(const json& check, const CheckContext& /*context*/) {
  const analytic::Tile tile = parse_tile(param_string(check, "tile"));
  const std::string of = param_string(check, "of");
  const std::string num_name = param_string(check, "numerator");
  const std::string den_name = param_string(check, "denominator");
  const auto num = analytic::iteration_intensity(tile, weights_of(num_name, 0));
  const auto den = analytic::iteration_intensity(tile, weights_of(den_name, 0));
  double a = 0;
  double b = 0;
  if (of == "intensity") {
    a = num.intensity_without_scales;
    b = den.intensity_without_scales;
  } else if (of == "b_bytes") {
    a = num.b_bytes;
    b = den.b_bytes;
  } else if (of == "total_bytes") {
    a = num.total_bytes;
    b = den.total_bytes;
  } else {
    throw InputError(fmt::format("unknown weights_ratio quantity '{}'", of));
  }
  const double ratio = a / b;
  return number_value(
      ratio, fmt::format("{} {}: {} {:.2f} / {} {:.2f} = {:.3f}", analytic::tile_name(tile), of,
                         num_name, a, den_name, b, ratio));
}

MethodValue intensity_over_balance(const json& check, const CheckContext& context) {
  const analytic::Tile tile = parse_tile(param_string(check, "tile"));
  const auto r = analytic::iteration_intensity(tile, weights_of(param_string(check, "weights"), 0));
  const double balance = model::machine_balance(*context.device);
  const double ratio = r.intensity_without_scales / balance;
  return number_value(
      ratio, fmt::format("{}: AI {:.1f} / balance {:.1f} FLOP/B = {:.2f}", context.device->name,
                         r.intensity_without_scales, balance, ratio));
}

MethodValue occupancy(const json& check, const CheckContext& context) {
  const model::DeviceSpec& device = device_of(check, context);
  const int threads = param_int_or(check, "threads", kDefaultThreads);
  const Resident r = resident(device, config_bytes(check, device), threads);
  if (r.result.refused) return cannot_check(r.work);
  const std::string quantity = param_string(check, "quantity");
  const double tgs = static_cast<double>(r.result.resident_threadgroups);
  if (quantity == "threadgroups_per_core") return number_value(tgs, r.work);
  if (quantity == "threads_per_core") {
    return number_value(tgs * threads,
                        fmt::format("{}; x {} threads = {}", r.work, threads, tgs * threads));
  }
  throw InputError(fmt::format("unknown occupancy quantity '{}'", quantity));
}

MethodValue occupancy_rule_bound(const json& check, const CheckContext& context) {
  const int threads = param_int_or(check, "threads", kDefaultThreads);
  const std::int64_t limit = param_int_or(check, "limit_bytes", 32768);
  std::string work;
  bool bound_holds = true;
  for (const json& config : check["configs"]) {
    if (!config.is_object() || !config.contains("tile") || !config.contains("variant")) {
      throw InputError("occupancy_rule_bound configs need tile and variant");
    }
    const std::int64_t bytes = config_bytes(config, *context.device);
    const std::int64_t rule = limit / bytes;
    const Resident r = resident(*context.device, bytes, threads);
    const std::int64_t model = r.result.refused ? 0 : r.result.resident_threadgroups;
    bound_holds = bound_holds && model <= rule;
    work += fmt::format("{}{} B: floor({}/{}) = {} vs model {}", work.empty() ? "" : "; ", bytes,
                        limit, bytes, rule, model);
  }
  return text_value(bound_holds ? "yes" : "no",
                    fmt::format("{}: {} ({})", context.device->name, work,
                                bound_holds ? "never above the rule" : "model exceeds the rule"));
}

MethodValue gpu_parallelism(const json& check, const CheckContext& context) {
  const model::DeviceSpec& device = *context.device;
  const int threads = param_int_or(check, "threads", kDefaultThreads);
  const Resident r = resident(device, config_bytes(check, device), threads);
  if (r.result.refused) return cannot_check(r.work);
  const double total = static_cast<double>(r.result.resident_threadgroups) * device.gpu.cores;
  return number_value(total, fmt::format("{}; x {} cores = {} threadgroups", r.work,
                                         device.gpu.cores, format_number(total)));
}

MethodValue gemm_tiles(const json& check, const CheckContext& /*context*/) {
  const analytic::GemmGrid g = analytic::gemm_grid(param_int(check, "m"), param_int(check, "n"),
                                                   param_int(check, "tm"), param_int(check, "tn"));
  const std::string work =
      fmt::format("ceil({}/{}) x ceil({}/{}) = {} x {} = {} tiles", param_int(check, "m"),
                  param_int(check, "tm"), param_int(check, "n"), param_int(check, "tn"), g.tiles_m,
                  g.tiles_n, g.threadgroups);
  const std::string quantity = param_string(check, "quantity");
  if (quantity == "m_tiles") return number_value(static_cast<double>(g.tiles_m), work);
  if (quantity == "n_tiles") return number_value(static_cast<double>(g.tiles_n), work);
  if (quantity == "tiles") return number_value(static_cast<double>(g.threadgroups), work);
  throw InputError(fmt::format("unknown gemm_tiles quantity '{}'", quantity));
}

MethodValue waves(const json& check, const CheckContext& context) {
  std::int64_t total = 0;
  if (check.contains("total")) {
    total = param_int(check, "total");
  } else if (check.contains("m") && check.contains("n") && check.contains("tm") &&
             check.contains("tn")) {
    total = analytic::gemm_grid(param_int(check, "m"), param_int(check, "n"),
                                param_int(check, "tm"), param_int(check, "tn"))
                .threadgroups;
  } else {
    throw InputError("waves needs total, or m, n, tm and tn");
  }
  std::int64_t slots = 0;
  std::string slot_work;
  if (check.contains("slots")) {
    slots = param_int(check, "slots");
    slot_work = fmt::format("{} slots (given)", slots);
  } else {
    const Resident r = resident(*context.device, config_bytes(check, *context.device),
                                param_int_or(check, "threads", kDefaultThreads));
    if (r.result.refused) return cannot_check(r.work);
    slots = r.result.resident_threadgroups * context.device->gpu.cores;
    slot_work = fmt::format("{} x {} cores = {} slots", r.work, context.device->gpu.cores, slots);
  }
  const analytic::WaveResult w = analytic::compute_waves(total, slots, 1);
  const std::string work =
      fmt::format("{}; {} threadgroups / {} = {:.2f}: {} waves ({} full, tail {})", slot_work,
                  total, slots, static_cast<double>(total) / static_cast<double>(slots), w.waves,
                  w.full_waves, w.tail_threadgroups);
  const std::string quantity = param_string(check, "quantity");
  if (quantity == "waves") return number_value(static_cast<double>(w.waves), work);
  if (quantity == "fractional_waves") {
    return number_value(static_cast<double>(total) / static_cast<double>(slots), work);
  }
  throw InputError(fmt::format("unknown waves quantity '{}'", quantity));
}

}  // namespace marlin::validate::detail
