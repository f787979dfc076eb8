// Reading, overriding, validating and resolving scenario files (docs/design.md §3, §4).
// Every function here throws InputError for bad input and nothing else for it.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

/// Reads and parses a JSON file (a regular file or a pipe, at most kMaxScenarioBytes;
/// json_limits.hpp). Errors name the file (and line:column for syntax).
nlohmann::json read_scenario_file(const std::string& path);

/// Parses scenario text as read_scenario_file does (comments allowed; nesting, NUL bytes,
/// duplicate keys and number overflow refused); errors name `path`.
nlohmann::json parse_scenario_text(const std::string& text, const std::string& path);

/// Applies one `--set KEY=VALUE` override: KEY is a dotted path (missing objects are
/// created), VALUE is parsed as JSON, else taken as a string. Errors name `--set`.
void apply_override(nlohmann::json& doc, std::string_view assignment);

/// Strictly validates a raw scenario and returns it with every default filled in.
/// Errors name the JSON path (`algorithm.compressor.kind`).
nlohmann::json resolve_scenario(const nlohmann::json& raw);

/// Builds the typed scenario from a resolved document and checks the combinations
/// that a per-key check cannot see (torus dims vs workers, node ids in range, ...).
Scenario to_scenario(const nlohmann::json& resolved);

/// Convenience: resolve + to_scenario.
inline Scenario load_scenario(const nlohmann::json& raw) {
  return to_scenario(resolve_scenario(raw));
}

/// The JSON Schema (draft 2020-12) of scenario files, generated from the same
/// table that validation uses, with a description and default for every key.
nlohmann::json scenario_schema();

}  // namespace dlsim::sim
