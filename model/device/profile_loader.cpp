#include "model/device/profile_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "model/common/input_error.h"
#include "model/device/profile_checks.h"
#include "model/device/profile_document.h"
#include "model/device/profile_error.h"
#include "model/device/profile_schema.h"
#include "model/device/units.h"

#ifndef MARLIN_PROFILES_DIR
#error "MARLIN_PROFILES_DIR must be defined by the build"
#endif

namespace marlin::model {
namespace {

using nlohmann::json;

// Upper bound of plain counts (threads, cores, registers, ...): generous, and small enough
// that products of two counts never overflow 64-bit arithmetic.
constexpr std::int64_t kMaxCount = std::int64_t{1} << 20;

const std::vector<std::string> kRegisterRowKeys = {"max_registers", "max_threads"};

// Decodes the leaves of one merged document into a DeviceSpec, in schema order, so that
// gpu.clock is known before any latency given as a time and occupancy.rule before the fields
// that depend on it. Every error names the file that wrote the leaf.
class Decoder {
 public:
  explicit Decoder(const ProfileDocument& document) : document_(document) {}

  DeviceSpec decode() const {
    DeviceSpec spec;
    spec.name = document_.name;
    spec.description = document_.description;
    spec.file = document_.file;
    for (const FieldDef& field : profile_fields()) {
      const bool needed =
          field.use == FieldUse::kAlways ||
          (field.use == FieldUse::kStaticRule) == (spec.occupancy.rule == OccupancyRule::kStatic);
      const auto it = document_.leaves.find(std::string(field.path));
      if (it == document_.leaves.end()) {
        if (needed) throw missing_error(field.path);
        continue;
      }
      const ProfileLeaf& leaf = it->second;
      if (!needed) {
        throw profile_error(
            leaf.file, field.path,
            fmt::format(
                "only used by the {} occupancy rule, but occupancy.rule is {}",
                field.use == FieldUse::kStaticRule ? "static" : "dynamic_caching",
                spec.occupancy.rule == OccupancyRule::kStatic ? "static" : "dynamic_caching"));
      }
      const FieldValue value = decode_value(field, leaf, spec.gpu.clock_hz);
      try {
        field.assign(spec, value);
      } catch (const InputError& error) {
        throw profile_error(leaf.file, field.path, error.what());
      }
      spec.provenance[std::string(field.path)] = leaf.provenance;
    }
    return spec;
  }

  // The file that set `path` (or the leaf `path` lies in), else the top file.
  std::string file_of(std::string_view path) const {
    std::string leaf_path(path.substr(0, path.find('[')));
    const auto it = document_.leaves.find(leaf_path);
    return it == document_.leaves.end() ? document_.file : it->second.file;
  }

 private:
  // "missing field" at the leaf, or "missing section" at the outermost absent section.
  InputError missing_error(std::string_view path) const {
    std::size_t end = 0;
    while (true) {
      end = path.find('.', end + 1);
      const std::string prefix(path.substr(0, end));
      const bool present =
          std::any_of(document_.leaves.begin(), document_.leaves.end(), [&](const auto& entry) {
            return entry.first == prefix || entry.first.starts_with(prefix + ".");
          });
      if (!present || end == std::string_view::npos) {
        return profile_error(document_.file, prefix,
                             end == std::string_view::npos ? "missing field" : "missing section");
      }
    }
  }

  // A JSON integer (or integral float) in [min, kMaxCount].
  static std::int64_t decode_integer(const json& value, const std::string& file,
                                     std::string_view path, std::int64_t min) {
    std::int64_t integer = 0;
    if (value.is_number_unsigned()) {
      const auto unsigned_value = value.get<std::uint64_t>();
      integer = unsigned_value > static_cast<std::uint64_t>(kMaxCount)
                    ? kMaxCount + 1
                    : static_cast<std::int64_t>(unsigned_value);
    } else if (value.is_number_integer()) {
      integer = value.get<std::int64_t>();
    } else if (value.is_number_float()) {
      const double real = value.get<double>();
      if (!std::isfinite(real) || real != std::floor(real)) {
        throw profile_error(file, path, fmt::format("expected a whole number, got {}", real));
      }
      integer = std::fabs(real) > static_cast<double>(kMaxCount) ? kMaxCount + 1
                                                                 : static_cast<std::int64_t>(real);
    } else {
      throw profile_error(file, path,
                          fmt::format("expected a plain number, got {}", describe(value)));
    }
    if (integer > kMaxCount) {
      throw profile_error(file, path, fmt::format("is too large (at most {})", kMaxCount));
    }
    check_minimum(integer, file, path, min);
    return integer;
  }

  // "must be positive" (min 1) or "must not be negative" (min 0) below `min`.
  static void check_minimum(std::int64_t integer, const std::string& file, std::string_view path,
                            std::int64_t min) {
    if (integer >= min) return;
    throw profile_error(
        file, path,
        fmt::format("{}, got {}", min > 0 ? "must be positive" : "must not be negative", integer));
  }

  // A JSON value's type for messages; strings are quoted so the user sees what was written.
  static std::string describe(const json& value) {
    if (value.is_string()) return fmt::format("a string '{}'", value.get<std::string>());
    return value.type_name();
  }

  // The string of a dimensioned value; `example` shows the expected form.
  static std::string require_text(const json& value, const std::string& file, std::string_view path,
                                  std::string_view example) {
    if (!value.is_string()) {
      throw profile_error(file, path,
                          fmt::format("expected a string with a unit such as \"{}\", got {}",
                                      example, describe(value)));
    }
    return value.get<std::string>();
  }

  // The register table: an array of rows with exactly max_registers and max_threads.
  static std::vector<RegisterStep> decode_register_table(const json& value, const std::string& file,
                                                         std::string_view path) {
    if (!value.is_array()) {
      throw profile_error(file, path,
                          fmt::format("expected an array of {{\"max_registers\": n, "
                                      "\"max_threads\": n}}, got {}",
                                      describe(value)));
    }
    std::vector<RegisterStep> steps;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::string row_path = fmt::format("{}[{}]", path, i);
      const json& row = value[i];
      if (!row.is_object()) {
        throw profile_error(file, row_path,
                            fmt::format("expected an object {{\"max_registers\": n, "
                                        "\"max_threads\": n}}, got {}",
                                        describe(row)));
      }
      for (const auto& [key, unused] : row.items()) {
        if (std::find(kRegisterRowKeys.begin(), kRegisterRowKeys.end(), key) ==
            kRegisterRowKeys.end()) {
          throw unknown_key_error(file, join_path(row_path, key), key, kRegisterRowKeys);
        }
      }
      RegisterStep step;
      for (const std::string& key : kRegisterRowKeys) {
        const std::string key_path = join_path(row_path, key);
        if (!row.contains(key)) throw profile_error(file, key_path, "missing field");
        const auto integer = static_cast<int>(decode_integer(row.at(key), file, key_path, 1));
        (key == "max_registers" ? step.max_registers : step.max_threads) = integer;
      }
      steps.push_back(step);
    }
    return steps;
  }

  // Runs a unit parser, adding the file and path to its message.
  template <typename Parse>
  static auto located(const std::string& file, std::string_view path, Parse&& parse) {
    try {
      return parse();
    } catch (const InputError& error) {
      throw profile_error(file, path, error.what());
    }
  }

  // Decodes one leaf by its FieldType and applies the per-field range rules.
  static FieldValue decode_value(const FieldDef& field, const ProfileLeaf& leaf, double clock_hz) {
    const std::string& file = leaf.file;
    const std::string_view path = field.path;
    const json& value = leaf.value;
    FieldValue decoded;
    switch (field.type) {
      case FieldType::kCount:
        decoded.integer = decode_integer(value, file, path, field.min_integer);
        break;
      case FieldType::kReal:
        if (!value.is_number()) {
          throw profile_error(file, path,
                              fmt::format("expected a plain number, got {}", describe(value)));
        }
        decoded.real = value.get<double>();
        if (!std::isfinite(decoded.real) || decoded.real <= 0) {
          throw profile_error(file, path, fmt::format("must be positive, got {}", decoded.real));
        }
        break;
      case FieldType::kBytes: {
        const std::string text = require_text(value, file, path, "32 KiB");
        decoded.integer = located(file, path, [&] { return parse_bytes(text); });
        check_minimum(decoded.integer, file, path, field.min_integer);
        break;
      }
      case FieldType::kFrequency: {
        const std::string text = require_text(value, file, path, "1578 MHz");
        decoded.real = located(file, path, [&] { return parse_frequency_hz(text); });
        break;
      }
      case FieldType::kBandwidth: {
        const std::string text = require_text(value, file, path, "546 GB/s");
        decoded.real = located(file, path, [&] { return parse_bandwidth(text); });
        break;
      }
      case FieldType::kTime: {
        const std::string text = require_text(value, file, path, "10 us");
        decoded.real = located(file, path, [&] { return parse_time_s(text); });
        break;
      }
      case FieldType::kCycles: {
        const std::string text = require_text(value, file, path, "4 cycles");
        decoded.integer = located(file, path, [&] { return parse_cycles(text); });
        check_minimum(decoded.integer, file, path, field.min_integer);
        break;
      }
      case FieldType::kLatency: {
        const std::string text = require_text(value, file, path, "6 cycles\" or \"234 ns");
        decoded.integer = located(file, path, [&] { return parse_latency_cycles(text, clock_hz); });
        check_minimum(decoded.integer, file, path, field.min_integer);
        break;
      }
      case FieldType::kGpuFamily:
      case FieldType::kOccupancyRule:
      case FieldType::kBankRule:
      case FieldType::kIssuePolicy:
        if (!value.is_string()) {
          throw profile_error(file, path,
                              fmt::format("expected a name (string), got {}", describe(value)));
        }
        decoded.word = value.get<std::string>();
        break;
      case FieldType::kRegisterTable:
        decoded.steps = decode_register_table(value, file, path);
        break;
    }
    const bool real_type = field.type == FieldType::kFrequency ||
                           field.type == FieldType::kBandwidth || field.type == FieldType::kTime;
    if (real_type && decoded.real <= 0) {
      throw profile_error(file, path,
                          fmt::format("must be positive, got '{}'", value.get<std::string>()));
    }
    return decoded;
  }

  const ProfileDocument& document_;
};

// The whole file as text; InputError when it cannot be read.
std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw InputError(fmt::format("{}: cannot open the profile file", path.string()));
  std::ostringstream text;
  text << stream.rdbuf();
  if (stream.bad())
    throw InputError(fmt::format("{}: cannot read the profile file", path.string()));
  return text.str();
}

// `--device` takes a name or a path: anything with a '/' or a .json suffix is a path.
bool is_path(const std::string& name_or_path) {
  return name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json");
}

// Loads a profile file; parents are siblings in the same directory.
DeviceSpec load_file(const std::filesystem::path& path) {
  if (std::filesystem::is_directory(path)) {
    throw InputError(fmt::format("{}: is a directory, not a profile file", path.string()));
  }
  const std::filesystem::path directory = path.parent_path();
  const auto read_parent = [&directory](const std::string& name) {
    const std::filesystem::path parent = directory / (name + ".json");
    if (!std::filesystem::exists(parent)) {
      throw InputError(fmt::format("no file {}", parent.string()));
    }
    return read_text_file(parent);
  };
  return parse_profile(read_text_file(path), path.string(), read_parent);
}

}  // namespace

std::filesystem::path profiles_dir() {
  const char* from_env = std::getenv("MARLIN_PROFILES_DIR");
  if (from_env != nullptr && *from_env != '\0') return from_env;
  return MARLIN_PROFILES_DIR;
}

DeviceSpec parse_profile(const std::string& json_text, const std::string& file_label,
                         const std::function<std::string(const std::string&)>& read_parent) {
  // Three stages: shape and inheritance (per file), values (merged), cross-field checks.
  const ProfileDocument document = read_profile_document(json_text, file_label, read_parent);
  const Decoder decoder(document);
  DeviceSpec spec = decoder.decode();
  check_profile_consistency(spec,
                            [&decoder](std::string_view path) { return decoder.file_of(path); });
  return spec;
}

DeviceSpec load_device(const std::string& name_or_path) {
  if (is_path(name_or_path)) return load_file(name_or_path);
  const std::filesystem::path path = profiles_dir() / (name_or_path + ".json");
  if (!std::filesystem::exists(path)) {
    const std::vector<std::string> names = list_devices();
    throw InputError(fmt::format("unknown device '{}'; available: {} (profiles in {})",
                                 name_or_path,
                                 names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", ")),
                                 profiles_dir().string()));
  }
  return load_file(path);
}

std::vector<std::string> list_devices() {
  std::vector<std::string> names;
  std::error_code error;
  const std::filesystem::path directory = profiles_dir();
  if (!std::filesystem::is_directory(directory, error)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    if (entry.is_regular_file(error) && entry.path().extension() == ".json") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace marlin::model
