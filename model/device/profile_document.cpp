#include "model/device/profile_document.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include "model/device/device_names.h"
#include "model/device/profile_error.h"
#include "model/device/profile_schema.h"

namespace marlin::model {
namespace {

using nlohmann::json;

constexpr int kMaxJsonDepth = 32;
constexpr std::size_t kMaxInheritanceDepth = 16;

const std::vector<std::string> kLeafKeys = {"value", "kind", "source", "note"};

// What one file says before its parents are merged in.
struct FileContents {
  std::string name;
  std::string description;
  std::string inherits;  // empty: no parent
  std::map<std::string, ProfileLeaf> leaves;
};

// Line and column (1-based) of byte offset `byte` in `text`.
std::pair<std::size_t, std::size_t> line_and_column(const std::string& text, std::size_t byte) {
  const std::size_t end = std::min(byte, text.size());
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// The part of a nlohmann parse error after "... line L, column C: ".
std::string parse_error_detail(const std::string& what) {
  const std::size_t column = what.find("column ");
  const std::size_t colon = column == std::string::npos ? what.find("] ") : what.find(": ", column);
  if (colon == std::string::npos) return what;
  return what.substr(colon + 2);
}

std::string describe_type(const json& value) { return value.type_name(); }

// The string member `key` of `object`; "missing field" when required and absent.
std::string require_string(const json& object, const std::string& key, const std::string& file,
                           const std::string& path, bool required) {
  const auto it = object.find(key);
  if (it == object.end()) {
    if (required) throw profile_error(file, path, "missing field");
    return {};
  }
  if (!it->is_string()) {
    throw profile_error(file, path, fmt::format("expected a string, got {}", describe_type(*it)));
  }
  return it->get<std::string>();
}

// Reads one leaf object {"value", "kind", "source", "note"} at `path`.
ProfileLeaf read_leaf(const json& object, const std::string& file, const std::string& path) {
  if (!object.is_object()) {
    throw profile_error(file, path,
                        fmt::format("expected an object {{\"value\": ..., \"kind\": ..., "
                                    "\"source\": ...}}, got {}",
                                    describe_type(object)));
  }
  for (const auto& [key, unused] : object.items()) {
    if (std::find(kLeafKeys.begin(), kLeafKeys.end(), key) == kLeafKeys.end()) {
      throw unknown_key_error(file, join_path(path, key), key, kLeafKeys);
    }
  }
  ProfileLeaf leaf;
  leaf.file = file;
  const auto value = object.find("value");
  if (value == object.end()) throw profile_error(file, path + ".value", "missing field");
  leaf.value = *value;
  // The value as written: the string itself ("546 GB/s"), or the number or list in JSON form.
  leaf.provenance.value = value->is_string() ? value->get<std::string>() : value->dump();
  const std::string kind = require_string(object, "kind", file, path + ".kind", true);
  try {
    leaf.provenance.kind = parse_source_kind(kind);
  } catch (const InputError& error) {
    throw profile_error(file, path + ".kind", error.what());
  }
  leaf.provenance.source = require_string(object, "source", file, path + ".source", true);
  if (leaf.provenance.source.find_first_not_of(" \t") == std::string::npos) {
    throw profile_error(file, path + ".source", "must name where the value comes from");
  }
  leaf.provenance.note = require_string(object, "note", file, path + ".note", false);
  return leaf;
}

// Walks the section object at `section` (a known section path), collecting its leaves.
void read_section(const json& object, const std::string& file, const std::string& section,
                  std::map<std::string, ProfileLeaf>& leaves) {
  if (!object.is_object()) {
    throw profile_error(
        file, section,
        fmt::format("expected an object (a section), got {}", describe_type(object)));
  }
  const std::vector<std::string> known = section_keys(section);
  for (const auto& [key, child] : object.items()) {
    const std::string path = join_path(section, key);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw unknown_key_error(file, path, key, known);
    }
    if (find_field(path) != nullptr) {
      leaves[path] = read_leaf(child, file, path);
    } else {
      read_section(child, file, path, leaves);
    }
  }
}

// Checks the top level of one file and collects its leaves; parents are not read here.
FileContents read_file_contents(const json& root, const std::string& file) {
  if (!root.is_object()) {
    throw profile_error(file, "(top level)",
                        fmt::format("expected a JSON object, got {}", describe_type(root)));
  }
  std::vector<std::string> known = {"name", "description", "inherits"};
  const std::vector<std::string> sections = section_keys("");
  known.insert(known.end(), sections.begin(), sections.end());
  FileContents contents;
  for (const auto& [key, child] : root.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw unknown_key_error(file, join_path("", key), key, known);
    }
    if (std::find(sections.begin(), sections.end(), key) != sections.end()) {
      read_section(child, file, key, contents.leaves);
    }
  }
  contents.name = require_string(root, "name", file, "name", true);
  contents.description = require_string(root, "description", file, "description", true);
  contents.inherits = require_string(root, "inherits", file, "inherits", false);
  if (contents.name.empty()) throw profile_error(file, "name", "must not be empty");
  if (root.contains("inherits")) {
    const std::string& parent = contents.inherits;
    const bool plain_name = !parent.empty() && parent.front() != '.' &&
                            std::all_of(parent.begin(), parent.end(), [](char c) {
                              return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                     (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
                            });
    if (!plain_name) {
      throw profile_error(file, "inherits",
                          fmt::format("'{}' is not a profile name (letters, digits, '-', '_', '.'; "
                                      "a profile in the same directory, without .json)",
                                      parent));
    }
  }
  return contents;
}

// Reads `text` and, recursively, its parents. `chain` holds the names of the files already
// on the inheritance path (children first), for cycle detection.
ProfileDocument read_chain(const std::string& text, const std::string& file,
                           const ParentReader& read_parent, std::vector<std::string>& chain,
                           const std::string& expected_name) {
  FileContents contents = read_file_contents(parse_json_text(text, file), file);
  if (!expected_name.empty() && contents.name != expected_name) {
    throw profile_error(file, "name",
                        fmt::format("'{}' does not match the profile name '{}' it is inherited as",
                                    contents.name, expected_name));
  }
  chain.push_back(contents.name);
  ProfileDocument document;
  if (!contents.inherits.empty()) {
    const std::string& parent = contents.inherits;
    if (std::find(chain.begin(), chain.end(), parent) != chain.end()) {
      throw profile_error(
          file, "inherits",
          fmt::format("inheritance cycle: {} -> {}", fmt::join(chain, " -> "), parent));
    }
    if (chain.size() >= kMaxInheritanceDepth) {
      throw profile_error(file, "inherits",
                          fmt::format("inheritance deeper than {} levels", kMaxInheritanceDepth));
    }
    std::string parent_text;
    try {
      parent_text = read_parent(parent);
    } catch (const InputError& error) {
      throw profile_error(file, "inherits",
                          fmt::format("cannot read parent profile '{}': {}", parent, error.what()));
    }
    document = read_chain(parent_text, sibling_label(file, parent), read_parent, chain, parent);
  }
  for (auto& [path, leaf] : contents.leaves) document.leaves[path] = std::move(leaf);
  document.name = contents.name;
  document.description = contents.description;
  document.file = file;
  return document;
}

}  // namespace

json parse_json_text(const std::string& json_text, const std::string& file) {
  // nlohmann keeps the last of duplicate keys and recurses without a limit, so a parser
  // callback tracks the open containers to reject both.
  // Open containers during parsing: the keys seen so far in each open object.
  struct Frame {
    bool is_object = false;
    std::set<std::string> keys;
    std::string current_key;
  };
  std::vector<Frame> frames;
  // The path of the value being parsed; `all_frames` false leaves out the innermost frame's
  // key (for a key event, whose key replaces it).
  const auto open_path = [&frames](bool all_frames) {
    std::string path;
    const std::size_t count = all_frames ? frames.size() : frames.size() - 1;
    for (std::size_t i = 0; i < count; ++i) {
      const Frame& frame = frames[i];
      if (frame.is_object && !frame.current_key.empty()) {
        path = join_path(path, frame.current_key);
      } else if (!frame.is_object) {
        path += "[]";
      }
    }
    return path;
  };
  const json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth) {
          throw profile_error(file, open_path(true),
                              fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth));
        }
        frames.push_back({event == json::parse_event_t::object_start, {}, {}});
        break;
      case json::parse_event_t::key: {
        Frame& frame = frames.back();
        std::string key = parsed.get<std::string>();
        if (!frame.keys.insert(key).second) {
          frame.current_key.clear();
          throw profile_error(file, join_path(open_path(false), key), "duplicate key");
        }
        frame.current_key = std::move(key);
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames.pop_back();
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  };
  try {
    return json::parse(json_text, callback, /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const json::parse_error& error) {
    const auto [line, column] = line_and_column(json_text, error.byte == 0 ? 0 : error.byte - 1);
    throw profile_error(file, fmt::format("line {}, column {}", line, column),
                        fmt::format("malformed JSON: {}", parse_error_detail(error.what())));
  } catch (const json::exception& error) {
    throw profile_error(file, "(top level)",
                        fmt::format("malformed JSON: {}", parse_error_detail(error.what())));
  }
}

std::string sibling_label(const std::string& file, const std::string& name) {
  const std::filesystem::path directory = std::filesystem::path(file).parent_path();
  return (directory / (name + ".json")).string();
}

ProfileDocument read_profile_document(const std::string& json_text, const std::string& file,
                                      const ParentReader& read_parent) {
  std::vector<std::string> chain;
  return read_chain(json_text, file, read_parent, chain, "");
}

}  // namespace marlin::model
