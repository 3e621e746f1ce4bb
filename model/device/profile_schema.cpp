#include "model/device/profile_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>

#include "model/common/input_error.h"
#include "model/device/device_names.h"

namespace marlin::model {
namespace {

using enum FieldType;
using enum FieldUse;

// Assigners: one instantiation per DeviceSpec member, so the table needs no hand-written code.
// Stores `value` in an integer member, refusing values the member's type cannot hold.
template <typename Target>
void store_integer(Target& target, std::int64_t value) {
  if (value > std::numeric_limits<Target>::max()) {
    throw InputError(fmt::format("is too large (at most {})", std::numeric_limits<Target>::max()));
  }
  target = static_cast<Target>(value);
}

template <auto kSection, auto kMember>
void assign_integer(DeviceSpec& spec, const FieldValue& value) {
  store_integer((spec.*kSection).*kMember, value.integer);
}

template <auto kSection, auto kMember>
void assign_real(DeviceSpec& spec, const FieldValue& value) {
  (spec.*kSection).*kMember = value.real;
}

template <auto kCache, auto kMember>
void assign_cache(DeviceSpec& spec, const FieldValue& value) {
  store_integer((spec.memory.*kCache).*kMember, value.integer);
}

template <OpTiming PipeSpec::*kOp>
void assign_throughput(DeviceSpec& spec, const FieldValue& value) {
  (spec.pipes.*kOp).throughput_cycles = static_cast<int>(value.integer);
}

template <OpTiming PipeSpec::*kOp>
void assign_latency(DeviceSpec& spec, const FieldValue& value) {
  (spec.pipes.*kOp).latency_cycles = static_cast<int>(value.integer);
}

void assign_family(DeviceSpec& spec, const FieldValue& value) {
  spec.gpu.family = parse_gpu_family(value.word);
}
void assign_rule(DeviceSpec& spec, const FieldValue& value) {
  spec.occupancy.rule = parse_occupancy_rule(value.word);
}
void assign_bank_rule(DeviceSpec& spec, const FieldValue& value) {
  spec.threadgroup_memory.bank_rule = parse_bank_rule(value.word);
}
void assign_issue_policy(DeviceSpec& spec, const FieldValue& value) {
  spec.gpu.issue_policy = parse_issue_policy(value.word);
}
void assign_register_table(DeviceSpec& spec, const FieldValue& value) {
  spec.occupancy.register_table = value.steps;
}

constexpr auto kGpu = &DeviceSpec::gpu;
constexpr auto kLimits = &DeviceSpec::limits;
constexpr auto kOcc = &DeviceSpec::occupancy;
constexpr auto kTgm = &DeviceSpec::threadgroup_memory;
constexpr auto kMem = &DeviceSpec::memory;
constexpr auto kDispatch = &DeviceSpec::dispatch;

// The table, in decoding order: gpu (clock first of the values latencies need), limits,
// occupancy (rule before its fields), pipes, threadgroup memory, memory, dispatch. The
// schema's JSON keys are the DeviceSpec member names without unit suffixes.
std::vector<FieldDef> make_fields() {
  std::vector<FieldDef> fields = {
      {"gpu.family", kGpuFamily, kAlways, 0, &assign_family},
      {"gpu.cores", kCount, kAlways, 1, &assign_integer<kGpu, &GpuSpec::cores>},
      {"gpu.clock", kFrequency, kAlways, 0, &assign_real<kGpu, &GpuSpec::clock_hz>},
      {"gpu.simd_width", kCount, kAlways, 1, &assign_integer<kGpu, &GpuSpec::simd_width>},
      {"gpu.schedulers_per_core", kCount, kAlways, 1,
       &assign_integer<kGpu, &GpuSpec::schedulers_per_core>},
      {"gpu.alu_lanes_per_core", kCount, kAlways, 1,
       &assign_integer<kGpu, &GpuSpec::alu_lanes_per_core>},
      {"gpu.issue_policy", kIssuePolicy, kAlways, 0, &assign_issue_policy},

      {"limits.max_threads_per_threadgroup", kCount, kAlways, 1,
       &assign_integer<kLimits, &LimitsSpec::max_threads_per_threadgroup>},
      {"limits.max_threadgroup_memory", kBytes, kAlways, 1,
       &assign_integer<kLimits, &LimitsSpec::max_threadgroup_memory_bytes>},
      {"limits.threadgroup_memory_alignment", kBytes, kAlways, 1,
       &assign_integer<kLimits, &LimitsSpec::threadgroup_memory_alignment_bytes>},
      {"limits.max_registers_per_thread", kCount, kAlways, 1,
       &assign_integer<kLimits, &LimitsSpec::max_registers_per_thread>},
      {"limits.max_threads_per_core", kCount, kAlways, 1,
       &assign_integer<kLimits, &LimitsSpec::max_threads_per_core>},
      {"limits.max_simdgroups_per_core", kCount, kAlways, 1,
       &assign_integer<kLimits, &LimitsSpec::max_simdgroups_per_core>},
      {"limits.max_threadgroups_per_core", kCount, kAlways, 1,
       &assign_integer<kLimits, &LimitsSpec::max_threadgroups_per_core>},

      {"occupancy.rule", kOccupancyRule, kAlways, 0, &assign_rule},
      {"occupancy.threadgroup_memory_per_core", kBytes, kStaticRule, 1,
       &assign_integer<kOcc, &OccupancySpec::threadgroup_memory_per_core_bytes>},
      {"occupancy.register_file_per_core", kBytes, kStaticRule, 1,
       &assign_integer<kOcc, &OccupancySpec::register_file_per_core_bytes>},
      {"occupancy.register_table", kRegisterTable, kStaticRule, 0, &assign_register_table},
      {"occupancy.onchip_pool_per_core", kBytes, kDynamicRule, 1,
       &assign_integer<kOcc, &OccupancySpec::onchip_pool_per_core_bytes>},
      {"occupancy.cache_reserve", kBytes, kDynamicRule, 0,
       &assign_integer<kOcc, &OccupancySpec::cache_reserve_bytes>},
      {"occupancy.register_residency", kReal, kDynamicRule, 0,
       &assign_real<kOcc, &OccupancySpec::register_residency>},
      {"occupancy.threadgroup_memory_granule", kBytes, kDynamicRule, 1,
       &assign_integer<kOcc, &OccupancySpec::threadgroup_memory_granule_bytes>},
      {"occupancy.assumed_registers_per_thread", kCount, kAlways, 1,
       &assign_integer<kOcc, &OccupancySpec::assumed_registers_per_thread>},
  };

  const auto add_pipe = [&](std::string_view name,
                            void (*throughput)(DeviceSpec&, const FieldValue&),
                            void (*latency)(DeviceSpec&, const FieldValue&)) {
    // Path strings outlive the table: a deque never moves its elements.
    static std::deque<std::string> paths;
    paths.push_back("pipes." + std::string(name) + ".throughput");
    fields.push_back({paths.back(), kCycles, kAlways, 1, throughput});
    paths.push_back("pipes." + std::string(name) + ".latency");
    fields.push_back({paths.back(), kLatency, kAlways, 1, latency});
  };
  add_pipe("fp16_fma", &assign_throughput<&PipeSpec::fp16_fma>,
           &assign_latency<&PipeSpec::fp16_fma>);
  add_pipe("fp32_fma", &assign_throughput<&PipeSpec::fp32_fma>,
           &assign_latency<&PipeSpec::fp32_fma>);
  add_pipe("fp32_add", &assign_throughput<&PipeSpec::fp32_add>,
           &assign_latency<&PipeSpec::fp32_add>);
  add_pipe("int_add", &assign_throughput<&PipeSpec::int_add>, &assign_latency<&PipeSpec::int_add>);
  add_pipe("int_mul", &assign_throughput<&PipeSpec::int_mul>, &assign_latency<&PipeSpec::int_mul>);
  add_pipe("fp_cmp_select", &assign_throughput<&PipeSpec::fp_cmp_select>,
           &assign_latency<&PipeSpec::fp_cmp_select>);
  add_pipe("convert", &assign_throughput<&PipeSpec::convert>, &assign_latency<&PipeSpec::convert>);
  add_pipe("exp2_log2", &assign_throughput<&PipeSpec::exp2_log2>,
           &assign_latency<&PipeSpec::exp2_log2>);
  add_pipe("reciprocal", &assign_throughput<&PipeSpec::reciprocal>,
           &assign_latency<&PipeSpec::reciprocal>);
  add_pipe("rsqrt", &assign_throughput<&PipeSpec::rsqrt>, &assign_latency<&PipeSpec::rsqrt>);
  add_pipe("shuffle", &assign_throughput<&PipeSpec::shuffle>, &assign_latency<&PipeSpec::shuffle>);
  add_pipe("simd_reduce", &assign_throughput<&PipeSpec::simd_reduce>,
           &assign_latency<&PipeSpec::simd_reduce>);
  add_pipe("matmul_f16", &assign_throughput<&PipeSpec::matmul_f16>,
           &assign_latency<&PipeSpec::matmul_f16>);
  add_pipe("matmul_f32", &assign_throughput<&PipeSpec::matmul_f32>,
           &assign_latency<&PipeSpec::matmul_f32>);

  const std::vector<FieldDef> rest = {
      {"threadgroup_memory.banks", kCount, kAlways, 1,
       &assign_integer<kTgm, &ThreadgroupMemorySpec::banks>},
      {"threadgroup_memory.bank_width", kBytes, kAlways, 1,
       &assign_integer<kTgm, &ThreadgroupMemorySpec::bank_width_bytes>},
      {"threadgroup_memory.bank_rule", kBankRule, kAlways, 0, &assign_bank_rule},
      {"threadgroup_memory.bytes_per_cycle", kCount, kAlways, 1,
       &assign_integer<kTgm, &ThreadgroupMemorySpec::bytes_per_cycle>},
      {"threadgroup_memory.latency", kLatency, kAlways, 1,
       &assign_integer<kTgm, &ThreadgroupMemorySpec::latency_cycles>},
      {"threadgroup_memory.threadgroup_barrier", kCycles, kAlways, 1,
       &assign_integer<kTgm, &ThreadgroupMemorySpec::threadgroup_barrier_cycles>},
      {"threadgroup_memory.simdgroup_barrier", kCycles, kAlways, 1,
       &assign_integer<kTgm, &ThreadgroupMemorySpec::simdgroup_barrier_cycles>},

      {"memory.l1.size", kBytes, kAlways, 1,
       &assign_cache<&MemorySpec::l1, &CacheSpec::size_bytes>},
      {"memory.l1.line", kBytes, kAlways, 1,
       &assign_cache<&MemorySpec::l1, &CacheSpec::line_bytes>},
      {"memory.l1.associativity", kCount, kAlways, 1,
       &assign_cache<&MemorySpec::l1, &CacheSpec::associativity>},
      {"memory.l1.hit_latency", kLatency, kAlways, 1,
       &assign_cache<&MemorySpec::l1, &CacheSpec::hit_latency_cycles>},
      {"memory.l1.bytes_per_cycle", kReal, kAlways, 0,
       &assign_real<kMem, &MemorySpec::l1_bytes_per_cycle>},
      {"memory.l2.size", kBytes, kAlways, 1,
       &assign_cache<&MemorySpec::l2, &CacheSpec::size_bytes>},
      {"memory.l2.line", kBytes, kAlways, 1,
       &assign_cache<&MemorySpec::l2, &CacheSpec::line_bytes>},
      {"memory.l2.associativity", kCount, kAlways, 1,
       &assign_cache<&MemorySpec::l2, &CacheSpec::associativity>},
      {"memory.l2.hit_latency", kLatency, kAlways, 1,
       &assign_cache<&MemorySpec::l2, &CacheSpec::hit_latency_cycles>},
      {"memory.l2.bytes_per_cycle", kReal, kAlways, 0,
       &assign_real<kMem, &MemorySpec::l2_bytes_per_cycle>},
      {"memory.slc.size", kBytes, kAlways, 1,
       &assign_cache<&MemorySpec::slc, &CacheSpec::size_bytes>},
      {"memory.slc.line", kBytes, kAlways, 1,
       &assign_cache<&MemorySpec::slc, &CacheSpec::line_bytes>},
      {"memory.slc.associativity", kCount, kAlways, 1,
       &assign_cache<&MemorySpec::slc, &CacheSpec::associativity>},
      {"memory.slc.hit_latency", kLatency, kAlways, 1,
       &assign_cache<&MemorySpec::slc, &CacheSpec::hit_latency_cycles>},
      {"memory.core_to_l2_bytes_per_cycle", kReal, kAlways, 0,
       &assign_real<kMem, &MemorySpec::core_to_l2_bytes_per_cycle>},
      {"memory.dram_bandwidth", kBandwidth, kAlways, 0,
       &assign_real<kMem, &MemorySpec::dram_bandwidth_bytes_per_s>},
      {"memory.dram_latency", kLatency, kAlways, 1,
       &assign_integer<kMem, &MemorySpec::dram_latency_cycles>},

      {"dispatch.dispatch_overhead", kTime, kAlways, 0,
       &assign_real<kDispatch, &DispatchSpec::dispatch_overhead_s>},
      {"dispatch.command_buffer_overhead", kTime, kAlways, 0,
       &assign_real<kDispatch, &DispatchSpec::command_buffer_overhead_s>},
  };
  fields.insert(fields.end(), rest.begin(), rest.end());
  return fields;
}

}  // namespace

const std::vector<FieldDef>& profile_fields() {
  static const std::vector<FieldDef> fields = make_fields();
  return fields;
}

const FieldDef* find_field(std::string_view path) {
  for (const FieldDef& field : profile_fields()) {
    if (field.path == path) return &field;
  }
  return nullptr;
}

std::vector<std::string> section_keys(std::string_view section_path) {
  std::vector<std::string> keys;
  const std::string prefix = section_path.empty() ? "" : std::string(section_path) + ".";
  for (const FieldDef& field : profile_fields()) {
    if (!field.path.starts_with(prefix)) continue;
    const std::string_view rest = field.path.substr(prefix.size());
    std::string key(rest.substr(0, rest.find('.')));
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
  }
  return keys;
}

bool is_section(std::string_view path) {
  const std::string prefix = std::string(path) + ".";
  return std::any_of(profile_fields().begin(), profile_fields().end(),
                     [&](const FieldDef& field) { return field.path.starts_with(prefix); });
}

}  // namespace marlin::model
