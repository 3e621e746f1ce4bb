// Human and JSON views of a `marlin-sim run` (kernel_run.h).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "model/device/device_spec.h"
#include "tools/cli/kernel_run.h"

namespace marlin::cli {

void print_run_report(std::ostream& out, const model::DeviceSpec& device,
                      const KernelRunReport& report);
nlohmann::json run_report_json(const model::DeviceSpec& device, const KernelRunReport& report);

}  // namespace marlin::cli
