#include "tools/cli/occupancy_report.h"

#include <fmt/format.h>

#include "model/common/join.h"
#include "tools/cli/format.h"
#include "tools/cli/table.h"

namespace marlin::cli {

using analytic::OccupancyResult;

std::string binding_names(const std::vector<analytic::LimitKind>& binding) {
  std::string names;
  for (analytic::LimitKind kind : binding) {
    append_item(names, " + ", analytic::limit_name(kind));
  }
  return names.empty() ? "-" : names;
}

namespace {

std::string amount(std::int64_t value, const std::string& unit) {
  if (unit == "bytes") return format_bytes(value);
  const bool singular = value == 1 && !unit.empty() && unit.back() == 's';
  return format_count(value) + " " + (singular ? unit.substr(0, unit.size() - 1) : unit);
}

std::string registers_text(const OccupancyResult& result) {
  if (!result.registers_used) return "not given (register limit not applied)";
  return fmt::format("{}{}", *result.registers_used,
                     result.registers_assumed ? " (assumed by the profile)" : "");
}

std::string next_step_text(const analytic::NextStep& step) {
  if (!step.reachable) return step.note;
  const std::string unit = step.resource == analytic::Resource::kThreadgroupMemory ? "bytes"
                           : step.resource == analytic::Resource::kRegisters       ? "registers"
                                                                                   : "threads";
  return fmt::format("{} fewer ({} -> {}) gives {} threadgroups ({})", amount(step.reduction, unit),
                     format_count(step.current), format_count(step.new_value),
                     step.resident_threadgroups, format_percent(step.occupancy_percent));
}

}  // namespace

void print_occupancy(std::ostream& out, const analytic::OccupancyQuery& query,
                     const OccupancyResult& result) {
  if (result.refused) {
    out << "refused: " << result.refusal_reason << '\n';
    return;
  }
  print_key_values(
      out,
      {{"threadgroup",
        fmt::format("{} threads = {} simdgroups ({} thread slots)", query.threads_per_threadgroup,
                    result.simdgroups_per_threadgroup, result.allocated_threads_per_threadgroup)},
       {"threadgroup memory",
        fmt::format("{} asked, {} allocated", format_bytes(query.threadgroup_memory_bytes),
                    format_bytes(result.allocated_threadgroup_memory_bytes))},
       {"registers per thread", registers_text(result)}});
  out << '\n';
  TextTable table({"limit", "per threadgroup", "per core", "threadgroups/core", "binding"});
  for (const analytic::OccupancyLimit& limit : result.limits) {
    bool binding = false;
    for (analytic::LimitKind kind : result.binding) binding = binding || kind == limit.kind;
    if (!limit.applies) {
      table.add_row({std::string(analytic::limit_name(limit.kind)), "-", "-", "-", limit.note});
      continue;
    }
    table.add_row({std::string(analytic::limit_name(limit.kind)),
                   amount(limit.per_threadgroup, limit.unit), amount(limit.per_core, limit.unit),
                   format_count(limit.resident_threadgroups), binding ? "<- binds" : ""});
  }
  table.print(out);
  if (result.pool) {
    const analytic::PoolFootprint& pool = *result.pool;
    out << fmt::format(
        "\non-chip pool: {} - {} cache reserve = {} available; one threadgroup takes {} "
        "threadgroup memory + {} registers = {}\n",
        format_bytes(pool.pool_bytes), format_bytes(pool.cache_reserve_bytes),
        format_bytes(pool.available_bytes), format_bytes(pool.threadgroup_memory_bytes),
        format_bytes(pool.register_bytes), format_bytes(pool.footprint_bytes));
  }
  out << fmt::format("\nresident per core: {} threadgroups, {} simdgroups; occupancy {}\n",
                     result.resident_threadgroups, result.resident_simdgroups,
                     format_percent(result.occupancy_percent));
  out << "bound by: " << binding_names(result.binding) << "\n\nnext step:\n";
  for (const analytic::NextStep& step : result.next_steps) {
    out << fmt::format("  {:<20}{}\n", std::string(analytic::resource_name(step.resource)) + ":",
                       next_step_text(step));
  }
}

nlohmann::json occupancy_json(const analytic::OccupancyQuery& query,
                              const OccupancyResult& result) {
  nlohmann::json json = {
      {"query",
       {{"threads_per_threadgroup", query.threads_per_threadgroup},
        {"threadgroup_memory_bytes", query.threadgroup_memory_bytes},
        {"registers_per_thread",
         query.registers_per_thread ? nlohmann::json(*query.registers_per_thread) : nullptr}}},
      {"refused", result.refused},
  };
  if (result.refused) {
    json["refusal_reason"] = result.refusal_reason;
    return json;
  }
  nlohmann::json limits = nlohmann::json::array();
  for (const analytic::OccupancyLimit& limit : result.limits) {
    limits.push_back({{"limit", analytic::limit_name(limit.kind)},
                      {"applies", limit.applies},
                      {"resident_threadgroups", limit.resident_threadgroups},
                      {"per_threadgroup", limit.per_threadgroup},
                      {"per_core", limit.per_core},
                      {"unit", limit.unit},
                      {"note", limit.note}});
  }
  nlohmann::json binding = nlohmann::json::array();
  for (analytic::LimitKind kind : result.binding) binding.push_back(analytic::limit_name(kind));
  nlohmann::json steps = nlohmann::json::array();
  for (const analytic::NextStep& step : result.next_steps) {
    steps.push_back({{"resource", analytic::resource_name(step.resource)},
                     {"reachable", step.reachable},
                     {"note", step.note},
                     {"current", step.current},
                     {"new_value", step.new_value},
                     {"reduction", step.reduction},
                     {"resident_threadgroups", step.resident_threadgroups},
                     {"occupancy_percent", step.occupancy_percent}});
  }
  json["simdgroups_per_threadgroup"] = result.simdgroups_per_threadgroup;
  json["allocated_threadgroup_memory_bytes"] = result.allocated_threadgroup_memory_bytes;
  json["registers_used"] =
      result.registers_used ? nlohmann::json(*result.registers_used) : nlohmann::json(nullptr);
  json["registers_assumed"] = result.registers_assumed;
  json["limits"] = limits;
  if (result.pool) {
    json["pool"] = {{"pool_bytes", result.pool->pool_bytes},
                    {"cache_reserve_bytes", result.pool->cache_reserve_bytes},
                    {"available_bytes", result.pool->available_bytes},
                    {"threadgroup_memory_bytes", result.pool->threadgroup_memory_bytes},
                    {"register_bytes", result.pool->register_bytes},
                    {"footprint_bytes", result.pool->footprint_bytes}};
  }
  json["resident_threadgroups"] = result.resident_threadgroups;
  json["resident_simdgroups"] = result.resident_simdgroups;
  json["occupancy_percent"] = result.occupancy_percent;
  json["binding"] = binding;
  json["next_steps"] = steps;
  return json;
}

void print_sweep(std::ostream& out, const std::string& x_name,
                 const std::vector<analytic::SweepPoint>& points) {
  TextTable table({x_name, "threadgroups/core", "simdgroups/core", "occupancy", "bound by"});
  for (const analytic::SweepPoint& point : points) {
    if (point.refused) {
      table.add_row({format_count(point.x), "-", "-", "-", "refused"});
      continue;
    }
    table.add_row({format_count(point.x), format_count(point.resident_threadgroups),
                   format_count(point.resident_simdgroups), format_percent(point.occupancy_percent),
                   binding_names(point.binding)});
  }
  table.print(out);
}

nlohmann::json sweep_json(const std::string& x_name,
                          const std::vector<analytic::SweepPoint>& points) {
  nlohmann::json rows = nlohmann::json::array();
  for (const analytic::SweepPoint& point : points) {
    nlohmann::json binding = nlohmann::json::array();
    for (analytic::LimitKind kind : point.binding) binding.push_back(analytic::limit_name(kind));
    rows.push_back({{x_name, point.x},
                    {"refused", point.refused},
                    {"resident_threadgroups", point.resident_threadgroups},
                    {"resident_simdgroups", point.resident_simdgroups},
                    {"occupancy_percent", point.occupancy_percent},
                    {"binding", binding}});
  }
  return {{"sweep", x_name}, {"points", rows}};
}

}  // namespace marlin::cli
