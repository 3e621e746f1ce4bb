// Loading device profiles (profiles/*.json) into a validated DeviceSpec.
//
// Contract: every function either returns a fully validated DeviceSpec (every field set from
// the profile, consistent, with provenance for each leaf keyed by JSON path) or throws
// marlin::InputError with one line "<file>: <json.path>: <message>". The format is
// documented in docs/profiles.md.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "model/device/device_spec.h"

namespace marlin::model {

// The directory of the shipped profiles: the environment variable MARLIN_PROFILES_DIR when
// set and not empty, else the directory compiled in.
std::filesystem::path profiles_dir();

// Loads a device by name ("m4max" -> <profiles_dir>/m4max.json) or by path (anything that
// contains '/' or ends in ".json"). Parents named by "inherits" are read from the profile's
// own directory. An unknown name throws InputError listing the available names.
DeviceSpec load_device(const std::string& name_or_path);

// Parses and validates one profile text. `file_label` names it in messages (and becomes
// DeviceSpec::file); `read_parent` returns the text of a parent profile by name or throws
// InputError.
DeviceSpec parse_profile(const std::string& json_text, const std::string& file_label,
                         const std::function<std::string(const std::string&)>& read_parent);

// Names of the profiles in profiles_dir(), sorted; empty when the directory does not exist.
std::vector<std::string> list_devices();

}  // namespace marlin::model
