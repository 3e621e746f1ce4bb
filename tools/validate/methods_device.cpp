// Check methods on device fields and plain arithmetic: device_field, device_expression,
// arithmetic, formula, mma_op, mma_calls.
#include <cmath>
#include <functional>

#include "fmt/core.h"
#include "model/analytic/budget.h"
#include "model/analytic/intensity.h"
#include "model/analytic/waves.h"
#include "model/common/input_error.h"
#include "model/device/device_math.h"
#include "tools/validate/claims.h"
#include "tools/validate/expression.h"
#include "tools/validate/method_params.h"

namespace marlin::validate::detail {
namespace {

using nlohmann::json;

const model::DeviceSpec& device_of(const json& check, const CheckContext& context) {
  if (check.contains("device")) return context.named_device(check["device"].get<std::string>());
  return *context.device;
}

const char* kind_name(model::SourceKind kind) {
  switch (kind) {
    case model::SourceKind::kVendor:
      return "vendor";
    case model::SourceKind::kMeasured:
      return "measured";
    case model::SourceKind::kReverseEngineered:
      return "reverse-engineered";
    case model::SourceKind::kEstimate:
      return "estimate";
    case model::SourceKind::kCalibrated:
      return "calibrated";
  }
  return "?";
}

struct RawField {
  const char* path;  // provenance key in the profile
  std::function<double(const model::DeviceSpec&)> get;
};

const std::map<std::string, RawField>& raw_fields() {
  static const std::map<std::string, RawField> fields = {
      {"cores", {"gpu.cores", [](const model::DeviceSpec& d) { return d.gpu.cores; }}},
      {"simd_width",
       {"gpu.simd_width", [](const model::DeviceSpec& d) { return d.gpu.simd_width; }}},
      {"max_threads_per_threadgroup",
       {"limits.max_threads_per_threadgroup",
        [](const model::DeviceSpec& d) { return d.limits.max_threads_per_threadgroup; }}},
      {"max_threadgroup_memory_bytes",
       {"limits.max_threadgroup_memory",
        [](const model::DeviceSpec& d) {
          return static_cast<double>(d.limits.max_threadgroup_memory_bytes);
        }}},
      {"max_registers_per_thread",
       {"limits.max_registers_per_thread",
        [](const model::DeviceSpec& d) { return d.limits.max_registers_per_thread; }}},
      {"dram_bandwidth_bytes_per_s",
       {"memory.dram_bandwidth",
        [](const model::DeviceSpec& d) { return d.memory.dram_bandwidth_bytes_per_s; }}},
      {"l2_size_bytes",
       {"memory.l2.size",
        [](const model::DeviceSpec& d) { return static_cast<double>(d.memory.l2.size_bytes); }}},
      {"matmul_f16_throughput_cycles",
       {"pipes.matmul_f16.throughput",
        [](const model::DeviceSpec& d) { return d.pipes.matmul_f16.throughput_cycles; }}},
  };
  return fields;
}

std::string peak_work(const model::DeviceSpec& d) {
  return fmt::format(
      "2 FLOP x {} schedulers x {} lanes / {} cycle x {} cores x {:.4g} GHz = {:.2f} TFLOP/s "
      "(FP16 FMA rate = FP32 rate on Apple GPUs)",
      d.gpu.schedulers_per_core, d.gpu.simd_width, d.pipes.fp16_fma.throughput_cycles, d.gpu.cores,
      d.gpu.clock_hz / 1e9, model::peak_fp16_flops(d.gpu, d.pipes) / 1e12);
}

Bindings device_bindings(const model::DeviceSpec& d) {
  return {
      {"cores", d.gpu.cores},
      {"simd_width", d.gpu.simd_width},
      {"clock_hz", d.gpu.clock_hz},
      {"max_threads_per_threadgroup", d.limits.max_threads_per_threadgroup},
      {"max_threadgroup_memory_bytes", static_cast<double>(d.limits.max_threadgroup_memory_bytes)},
      {"max_registers_per_thread", d.limits.max_registers_per_thread},
      {"dram_bandwidth_bytes_per_s", d.memory.dram_bandwidth_bytes_per_s}};
}

// A model quantity a document formula is compared against, with the model's own formula.
struct Reference {
  const char* model_formula;
  std::function<double(const Bindings&)> value;
};

analytic::Tile tile_of(const Bindings& b) {
  return {static_cast<int>(b.at("M")), static_cast<int>(b.at("N")), static_cast<int>(b.at("K"))};
}

double budget_total(const Bindings& b, analytic::KernelVariant variant) {
  analytic::BudgetOptions options;
  if (b.count("SG") != 0) options.simdgroups = static_cast<int>(b.at("SG"));
  model::LimitsSpec unlimited;
  unlimited.max_threadgroup_memory_bytes = std::int64_t{1} << 40;
  return static_cast<double>(
      analytic::threadgroup_memory_budget(tile_of(b), variant, options, unlimited).total_bytes);
}

analytic::IterationIntensity iteration(const Bindings& b, analytic::WeightFormat format,
                                       bool scales) {
  analytic::WeightSpec weights;
  weights.format = format;
  if (scales) {
    weights.scales = analytic::ScaleMode::kPerGroup;
    weights.group_size = static_cast<int>(b.at("G"));
  }
  return analytic::iteration_intensity(tile_of(b), weights);
}

const std::map<std::string, Reference>& references() {
  using analytic::KernelVariant;
  using analytic::WeightFormat;
  static const std::map<std::string, Reference> refs = {
      {"budget_separate_total",
       {"2*M*K*2 + 2*K*N*2",
        [](const Bindings& b) { return budget_total(b, KernelVariant::kDoubleBufferedSeparate); }}},
      {"budget_fused_total",
       {"M*K*2 + SG*8*8*2",
        [](const Bindings& b) { return budget_total(b, KernelVariant::kFusedDequant); }}},
      {"iteration_flops",
       {"2*M*N*K",
        [](const Bindings& b) {
          return static_cast<double>(iteration(b, WeightFormat::kFp4, false).flops);
        }}},
      {"iteration_a_bytes",
       {"M*K*2",
        [](const Bindings& b) { return iteration(b, WeightFormat::kFp4, false).a_bytes; }}},
      {"iteration_b_bytes_fp4",
       {"K*N*4/8",
        [](const Bindings& b) { return iteration(b, WeightFormat::kFp4, false).b_bytes; }}},
      {"iteration_scale_bytes",
       {"(K/G)*N*2",
        [](const Bindings& b) { return iteration(b, WeightFormat::kFp4, true).scale_bytes; }}},
      {"grid_tiles_m",
       {"ceil(M/TM)",
        [](const Bindings& b) {
          return static_cast<double>(analytic::gemm_grid(static_cast<std::int64_t>(b.at("M")), 1,
                                                         static_cast<std::int64_t>(b.at("TM")), 1)
                                         .tiles_m);
        }}},
      {"grid_tiles_n",
       {"ceil(N/TN)",
        [](const Bindings& b) {
          return static_cast<double>(analytic::gemm_grid(1, static_cast<std::int64_t>(b.at("N")), 1,
                                                         static_cast<std::int64_t>(b.at("TN")))
                                         .tiles_n);
        }}},
      {"iteration_intensity_fp4",
       {"2*M*N*K / (M*K*2 + K*N*4/8)",
        [](const Bindings& b) {
          return iteration(b, WeightFormat::kFp4, false).intensity_without_scales;
        }}},
  };
  return refs;
}

}  // namespace

MethodValue device_field(const json& check, const CheckContext& context) {
  const model::DeviceSpec& d = device_of(check, context);
  const std::string field = param_string(check, "field");
  if (field == "peak_fp16_flops") {
    return number_value(model::peak_fp16_flops(d.gpu, d.pipes), d.name + ": " + peak_work(d));
  }
  if (field == "machine_balance") {
    const double balance = model::machine_balance(d);
    return number_value(balance, fmt::format("{}: {:.2f} TFLOP/s / {:.4g} GB/s = {:.1f} FLOP/B",
                                             d.name, model::peak_fp16_flops(d.gpu, d.pipes) / 1e12,
                                             d.memory.dram_bandwidth_bytes_per_s / 1e9, balance));
  }
  const auto it = raw_fields().find(field);
  if (it == raw_fields().end()) throw InputError(fmt::format("unknown device field '{}'", field));
  const double value = it->second.get(d);
  const auto prov = d.provenance.find(it->second.path);
  const std::string kind = prov == d.provenance.end() ? "unknown" : kind_name(prov->second.kind);
  const std::string written =
      prov == d.provenance.end() ? format_number(value) : prov->second.value;
  if (kind == "estimate" || kind == "calibrated" || kind == "unknown") {
    return cannot_check(fmt::format(
        "{}: profile {} = {} is an {} ({}), not a published figure", d.name, it->second.path,
        written, kind, prov == d.provenance.end() ? "no source" : prov->second.source));
  }
  return number_value(
      value, fmt::format("{}: profile {} = {} ({})", d.name, it->second.path, written, kind));
}

MethodValue device_expression(const json& check, const CheckContext& context) {
  const model::DeviceSpec& d = device_of(check, context);
  const std::string expression = param_string(check, "expression");
  const double value = evaluate_expression(expression, device_bindings(d), true);
  return number_value(value, fmt::format("{}: {} = {}", d.name, expression, format_number(value)));
}

MethodValue arithmetic(const json& check, const CheckContext& /*context*/) {
  const std::string expression = param_string(check, "expression");
  const bool integer_division =
      check.contains("integer_division") && check["integer_division"].get<bool>();
  const double value = evaluate_expression(expression, {}, integer_division);
  return number_value(value, fmt::format("{} = {}", expression, format_number(value)));
}

MethodValue formula(const json& check, const CheckContext& /*context*/) {
  const std::string expression = param_string(check, "expression");
  const std::string ref_name = param_string(check, "reference");
  const auto ref = references().find(ref_name);
  if (ref == references().end()) throw InputError(fmt::format("unknown reference '{}'", ref_name));
  const bool integer_division =
      check.contains("integer_division") && check["integer_division"].get<bool>();
  std::string work;
  bool all_match = true;
  for (const json& c : check["cases"]) {
    if (!c.is_object()) throw InputError("formula cases must be objects of variable values");
    Bindings b;
    for (const auto& [name, value] : c.items()) {
      if (!value.is_number())
        throw InputError(fmt::format("formula case {} is not a number", name));
      b[name] = value.get<double>();
    }
    for (const char* v : {"M", "N", "K"}) {
      if (b.count(v) == 0) throw InputError(fmt::format("formula case without {}", v));
    }
    Bindings doc = b;
    doc["TILE_M"] = b["M"];
    doc["TILE_N"] = b["N"];
    doc["TILE_K"] = b["K"];
    if (b.count("G") != 0) doc["group_size"] = b["G"];
    const double claimed = evaluate_expression(expression, doc, integer_division);
    const double model = ref->second.value(b);
    const bool match = std::fabs(claimed - model) <= 1e-9 * std::max(1.0, std::fabs(model));
    all_match = all_match && match;
    std::string vars;
    for (const auto& [name, value] : b) {
      vars += fmt::format("{}{}={}", vars.empty() ? "" : " ", name, format_number(value));
    }
    work += fmt::format("{}{}: {} {} {}", work.empty() ? "" : "; ", vars, format_number(claimed),
                        match ? "=" : "!=", format_number(model));
  }
  work += fmt::format(" (model: {})", ref->second.model_formula);
  return text_value(all_match ? expression : ref->second.model_formula, work);
}

MethodValue mma_op(const json& check, const CheckContext& /*context*/) {
  const std::string quantity = param_string(check, "quantity");
  constexpr std::int64_t kFma = std::int64_t{8} * 8 * 8;
  if (quantity == "fma") {
    return number_value(kFma, "C[8x8] += A[8x8] * B[8x8]: 64 outputs x 8 products = 512 FMAs");
  }
  if (quantity == "flops") {
    return number_value(static_cast<double>(analytic::kFlopsPerMma),
                        "8x8x8 = 512 FMAs x 2 FLOP = 1024 FLOPs per call");
  }
  if (quantity == "fma_per_output") {
    return number_value(8, "each output sums K = 8 products: 8 FMAs per element");
  }
  if (quantity == "flops_per_fma") return number_value(2, "an FMA is a multiply and an add");
  throw InputError(fmt::format("unknown mma_op quantity '{}'", quantity));
}

MethodValue mma_calls(const json& check, const CheckContext& /*context*/) {
  const int m = param_int(check, "m");
  const int n = param_int(check, "n");
  const int k = param_int(check, "k");
  if (m < 8 || n < 8 || k < 8 || m % 8 != 0 || n % 8 != 0 || k % 8 != 0) {
    throw InputError("mma_calls needs m, n, k positive multiples of 8");
  }
  const double calls = (m / 8.0) * (n / 8.0) * (k / 8.0);
  return number_value(calls, fmt::format("({}/8) x ({}/8) x ({}/8) = {} 8x8x8 calls for {}x{}x{}",
                                         m, n, k, format_number(calls), m, n, k));
}

}  // namespace marlin::validate::detail
