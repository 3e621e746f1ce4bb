// Reading profile files: JSON text -> validated leaves, with inheritance resolved.
//
// Contract: read_profile_document parses one profile text (labelled `file` in messages),
// checks its shape against the schema (profile_schema.h) -- top-level name, description and
// optional inherits; sections and leaves only at known keys; each leaf an object with value,
// kind, source and optional note -- then loads the parents named by "inherits" through
// `read_parent` and merges: a child's leaf replaces the parent's leaf whole. Values are not
// decoded here (that needs the merged clock); each leaf remembers the file that set it so a
// later error names the right file. Throws marlin::InputError on any problem, including
// malformed JSON (with line and column), duplicate keys, inheritance cycles and a missing
// parent.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "model/device/device_spec.h"

namespace marlin::model {

// Returns the JSON text of the profile named `name` (a sibling of the child), or throws
// InputError when there is none.
using ParentReader = std::function<std::string(const std::string& name)>;

struct ProfileLeaf {
  nlohmann::json value;   // the raw "value", decoded later by its FieldType
  Provenance provenance;  // kind, source, note
  std::string file;       // label of the file that set this leaf
};

struct ProfileDocument {
  std::string name;                           // of the top file
  std::string description;                    // of the top file
  std::string file;                           // label of the top file
  std::map<std::string, ProfileLeaf> leaves;  // JSON path -> leaf, parents merged in
};

ProfileDocument read_profile_document(const std::string& json_text, const std::string& file,
                                      const ParentReader& read_parent);

// Parses JSON text strictly (no comments, no duplicate keys, nesting at most 32 deep).
// Throws InputError "<file>: line L, column C: malformed JSON: ...".
nlohmann::json parse_json_text(const std::string& json_text, const std::string& file);

// The label of the sibling profile `name` of the file labelled `file`: same directory,
// <name>.json.
std::string sibling_label(const std::string& file, const std::string& name);

}  // namespace marlin::model
