// The scenario's key table (docs/design.md §4): the root object assembled from one file
// per section (spec_<section>.cpp), whose kinds come from the registries. Validation
// and default filling (validate.cpp), the JSON Schema (schema.cpp) and the key
// reference (docs.cpp) are all generated from it. The vocabulary (Key, Value, Variant,
// Object and their builders) is spec/key_table.hpp.
//
// Checks that involve several keys live with their kind (its registration) or in
// to_scenario_<section>.cpp.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "spec/key_table.hpp"

namespace dlsim::sim::spec {

using namespace dlsim::spec;

/// The whole scenario file: the root object.
const Object& scenario();

/// Checks `raw` against `value` and returns it with every nested default filled in
/// (validate.cpp). `path` names `raw` in errors; `root` is the raw document that
/// dynamic defaults read. Throws InputError.
nlohmann::json resolve_value(const Value& value, const nlohmann::json& raw, const std::string& path,
                             const nlohmann::json& root);

/// The key reference as Markdown (one table per section, dotted key paths, kind
/// conditions, types and defaults), for the README (docs.cpp).
std::string reference_markdown();

/// Documentation of a value's type for humans: "time > 0", "integer in [1, 1000000]".
std::string type_text(const Value& value);

}  // namespace dlsim::sim::spec
