// Error messages of the profile loader: "<file>: <json.path>: <message>", one line, as
// marlin::InputError. Shared by the document reader, the decoder and the consistency checks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/common/input_error.h"

namespace marlin::model {

// The error for a problem at `path` of the profile file labelled `file`.
InputError profile_error(std::string_view file, std::string_view path, std::string_view message);

// The candidate closest to `key` by edit distance when it is close enough to be a likely
// typo (distance at most max(2, |key| / 3)); empty otherwise.
std::string closest_key(std::string_view key, const std::vector<std::string>& candidates);

// "unknown key; did you mean X?" or "unknown key; expected one of a, b, c".
InputError unknown_key_error(std::string_view file, std::string_view path, std::string_view key,
                             const std::vector<std::string>& candidates);

// `child` joined to `section` with '.', or just `child` at the top level.
std::string join_path(std::string_view section, std::string_view child);

}  // namespace marlin::model
