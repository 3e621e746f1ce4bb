// Human and JSON views of the occupancy model's results.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "model/analytic/occupancy.h"

namespace marlin::cli {

std::string binding_names(const std::vector<analytic::LimitKind>& binding);

void print_occupancy(std::ostream& out, const analytic::OccupancyQuery& query,
                     const analytic::OccupancyResult& result);
nlohmann::json occupancy_json(const analytic::OccupancyQuery& query,
                              const analytic::OccupancyResult& result);

void print_sweep(std::ostream& out, const std::string& x_name,
                 const std::vector<analytic::SweepPoint>& points);
nlohmann::json sweep_json(const std::string& x_name,
                          const std::vector<analytic::SweepPoint>& points);

}  // namespace marlin::cli
