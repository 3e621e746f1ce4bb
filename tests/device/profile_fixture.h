// Small valid profiles built in code, for tests that break one thing at a time.
//
// The numbers are test values chosen to be easy to check by hand; they are not device data.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "model/common/input_error.h"
#include "model/device/profile_loader.h"

namespace marlin::model::testing {

using nlohmann::json;

// A leaf object with a value, a kind and a source.
inline json leaf(const json& value, const std::string& kind = "estimate") {
  return json{{"value", value}, {"kind", kind}, {"source", "test fixture"}};
}

inline json pipe(const std::string& throughput, const std::string& latency) {
  return json{{"throughput", leaf(throughput)}, {"latency", leaf(latency)}};
}

// A complete Apple9 (Dynamic Caching) profile at a 1 GHz clock.
inline json dynamic_profile() {
  json profile;
  profile["name"] = "dev";
  profile["description"] = "test device";
  profile["gpu"] = {{"family", leaf("apple9", "vendor")},  {"cores", leaf(10, "vendor")},
                    {"clock", leaf("1 GHz", "measured")},  {"simd_width", leaf(32)},
                    {"schedulers_per_core", leaf(4)},      {"alu_lanes_per_core", leaf(128)},
                    {"issue_policy", leaf("oldest_first")}};
  profile["limits"] = {
      {"max_threads_per_threadgroup", leaf(1024)},    {"max_threadgroup_memory", leaf("32 KiB")},
      {"threadgroup_memory_alignment", leaf("16 B")}, {"max_registers_per_thread", leaf(128)},
      {"max_threads_per_core", leaf(2048)},           {"max_simdgroups_per_core", leaf(64)},
      {"max_threadgroups_per_core", leaf(16)}};
  profile["occupancy"] = {{"rule", leaf("dynamic_caching")},
                          {"onchip_pool_per_core", leaf("128 KiB")},
                          {"cache_reserve", leaf("16 KiB")},
                          {"register_residency", leaf(0.5)},
                          {"threadgroup_memory_granule", leaf("32 B")},
                          {"assumed_registers_per_thread", leaf(24)}};
  profile["pipes"] = {{"fp16_fma", pipe("1 cycle", "3 cycles")},
                      {"fp32_fma", pipe("2 cycles", "7 cycles")},
                      {"fp32_add", pipe("1 cycle", "3 cycles")},
                      {"int_add", pipe("1 cycle", "4 cycles")},
                      {"int_mul", pipe("4 cycles", "5 cycles")},
                      {"fp_cmp_select", pipe("1 cycle", "6 cycles")},
                      {"convert", pipe("1 cycle", "4 cycles")},
                      {"exp2_log2", pipe("4 cycles", "6 cycles")},
                      {"reciprocal", pipe("6 cycles", "8 cycles")},
                      {"rsqrt", pipe("8 cycles", "10 cycles")},
                      {"shuffle", pipe("2 cycles", "6 cycles")},
                      {"simd_reduce", pipe("15 cycles", "28 cycles")},
                      {"matmul_f16", pipe("17 cycles", "34 cycles")},
                      {"matmul_f32", pipe("18 cycles", "36 ns")}};
  profile["threadgroup_memory"] = {{"banks", leaf(16)},
                                   {"bank_width", leaf("8 B")},
                                   {"bank_rule", leaf("classic")},
                                   {"bytes_per_cycle", leaf(32)},
                                   {"latency", leaf("20 cycles")},
                                   {"threadgroup_barrier", leaf("40 cycles")},
                                   {"simdgroup_barrier", leaf("3 cycles")}};
  const auto cache = [](const char* size, const char* line, int ways, const char* latency,
                        double bytes_per_cycle) {
    return json{{"size", leaf(size)},
                {"line", leaf(line)},
                {"associativity", leaf(ways)},
                {"hit_latency", leaf(latency)},
                {"bytes_per_cycle", leaf(bytes_per_cycle)}};
  };
  auto slc = cache("8 MiB", "128 B", 16, "300 ns", 1);
  slc.erase("bytes_per_cycle");  // the SLC has no port of its own
  profile["memory"] = {{"l1", cache("16 KiB", "64 B", 8, "50 cycles", 48)},
                       {"l2", cache("1 MiB", "128 B", 8, "150 ns", 256.5)},
                       {"slc", slc},
                       {"core_to_l2_bytes_per_cycle", leaf(16.5)},
                       {"dram_bandwidth", leaf("100 GB/s", "vendor")},
                       {"dram_latency", leaf("500 ns")}};
  profile["dispatch"] = {{"dispatch_overhead", leaf("3 us")},
                         {"command_buffer_overhead", leaf("20 us", "measured")}};
  return profile;
}

// A complete Apple7 (static rule) profile: the dynamic one with the occupancy section
// replaced by the static knobs.
inline json static_profile() {
  json profile = dynamic_profile();
  profile["gpu"]["family"] = leaf("apple7", "vendor");
  json table = json::array({json{{"max_registers", 32}, {"max_threads", 1024}},
                            json{{"max_registers", 64}, {"max_threads", 512}},
                            json{{"max_registers", 128}, {"max_threads", 256}}});
  profile["occupancy"] = {{"rule", leaf("static")},
                          {"threadgroup_memory_per_core", leaf("48 KiB")},
                          {"register_file_per_core", leaf("128 KiB")},
                          {"register_table", leaf(table, "reverse-engineered")},
                          {"assumed_registers_per_thread", leaf(24)}};
  return profile;
}

inline std::string no_parent(const std::string& name) {
  throw InputError("no profile named " + name);
}

// Parses `text` as the file "test/dev.json" with parents from `parents` (name -> text).
inline DeviceSpec parse_text(const std::string& text,
                             const std::map<std::string, std::string>& parents = {},
                             const std::string& label = "test/dev.json") {
  return parse_profile(text, label, [&parents](const std::string& name) {
    const auto it = parents.find(name);
    if (it == parents.end()) throw InputError("no profile named " + name);
    return it->second;
  });
}

inline DeviceSpec parse_json(const json& profile) { return parse_text(profile.dump(2)); }

// The InputError message of parsing `text`; fails the test when it parses or throws anything
// else.
inline std::string error_of_text(const std::string& text,
                                 const std::map<std::string, std::string>& parents = {},
                                 const std::string& label = "test/dev.json") {
  try {
    parse_text(text, parents, label);
  } catch (const InputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "profile was accepted";
  return {};
}

inline std::string error_of(const json& profile) { return error_of_text(profile.dump(2)); }

}  // namespace marlin::model::testing
