#include "tools/cli/device_report.h"

#include <fmt/format.h>

#include "model/device/device_math.h"
#include "model/device/device_names.h"
#include "tools/cli/format.h"
#include "tools/cli/table.h"

namespace marlin::cli {

using model::DeviceSpec;

void print_device_summary(std::ostream& out, const DeviceSpec& d) {
  const double peak = model::peak_fp16_flops(d.gpu, d.pipes);
  const double mma_peak = model::peak_matmul_f16_flops(d.gpu, d.pipes);
  out << fmt::format("device {} ({}), profile {}\n", d.name, d.description, d.file);
  print_key_values(
      out,
      {
          {"family", fmt::format("{} (occupancy rule: {})", model::to_string(d.gpu.family),
                                 model::to_string(d.occupancy.rule))},
          {"GPU cores", std::to_string(d.gpu.cores)},
          {"clock", fmt::format("{:.0f} MHz", d.gpu.clock_hz / 1e6)},
          {"SIMD width", std::to_string(d.gpu.simd_width)},
          {"ALU lanes per core", std::to_string(d.gpu.alu_lanes_per_core)},
          {"peak FP16 FMA", format_rate(peak, "FLOP/s")},
          {"peak simdgroup matmul", format_rate(mma_peak, "FLOP/s")},
          {"DRAM bandwidth", format_rate(d.memory.dram_bandwidth_bytes_per_s, "B/s")},
          {"machine balance", fmt::format("{:.1f} FLOP/B", model::machine_balance(d))},
          {"max threads per threadgroup", std::to_string(d.limits.max_threads_per_threadgroup)},
          {"max threadgroup memory",
           format_bytes(d.limits.max_threadgroup_memory_bytes) + " per threadgroup"},
          {"max threads per core", std::to_string(d.limits.max_threads_per_core)},
      });
}

nlohmann::json device_summary_json(const DeviceSpec& d) {
  return {
      {"name", d.name},
      {"description", d.description},
      {"file", d.file},
      {"family", model::to_string(d.gpu.family)},
      {"occupancy_rule", model::to_string(d.occupancy.rule)},
      {"cores", d.gpu.cores},
      {"clock_hz", d.gpu.clock_hz},
      {"simd_width", d.gpu.simd_width},
      {"alu_lanes_per_core", d.gpu.alu_lanes_per_core},
      {"peak_fp16_flops", model::peak_fp16_flops(d.gpu, d.pipes)},
      {"peak_matmul_f16_flops", model::peak_matmul_f16_flops(d.gpu, d.pipes)},
      {"dram_bandwidth_bytes_per_s", d.memory.dram_bandwidth_bytes_per_s},
      {"machine_balance_flops_per_byte", model::machine_balance(d)},
      {"max_threads_per_threadgroup", d.limits.max_threads_per_threadgroup},
      {"max_threadgroup_memory_bytes", d.limits.max_threadgroup_memory_bytes},
      {"max_threads_per_core", d.limits.max_threads_per_core},
  };
}

void print_device_fields(std::ostream& out, const DeviceSpec& d) {
  out << fmt::format("device {} ({}), profile {}\n\n", d.name, d.description, d.file);
  TextTable table({"field", "value", "kind", "source"});
  for (const auto& [path, provenance] : d.provenance) {
    std::string source = provenance.source;
    if (source.size() > 70) source = source.substr(0, 67) + "...";
    table.add_row({path, provenance.value, std::string(model::to_string(provenance.kind)), source});
  }
  table.print(out);
}

nlohmann::json device_fields_json(const DeviceSpec& d) {
  nlohmann::json fields = nlohmann::json::object();
  for (const auto& [path, provenance] : d.provenance) {
    fields[path] = {{"value", provenance.value},
                    {"kind", model::to_string(provenance.kind)},
                    {"source", provenance.source},
                    {"note", provenance.note}};
  }
  nlohmann::json result = device_summary_json(d);
  result["fields"] = fields;
  return result;
}

}  // namespace marlin::cli
