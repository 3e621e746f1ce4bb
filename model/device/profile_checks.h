// Cross-field consistency checks of a decoded DeviceSpec (per-field ranges are checked while
// decoding). Throws marlin::InputError "<file>: <json.path>: <message>", where `file_of`
// gives the label of the file that set a JSON path.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "model/device/device_spec.h"

namespace marlin::model {

using FileOfPath = std::function<std::string(std::string_view path)>;

void check_profile_consistency(const DeviceSpec& spec, const FileOfPath& file_of);

}  // namespace marlin::model
