// Limits on untrusted JSON input (issue 22): a scenario file, a `--set` value or a sweep
// grid value is checked against them before it is parsed, so that hostile input costs
// bounded time, memory and stack. nlohmann's parser keeps its own stack, but copying,
// comparing and dumping a document recurse once per nesting level: 50,000 levels
// overflow the thread's stack. (Numbers beyond a double, `1e999`, nlohmann refuses
// itself: read.cpp reports them, and a command-line value becomes a string.)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace dlsim::sim {

/// Deepest nesting of arrays and objects accepted anywhere in a scenario.
inline constexpr std::size_t kMaxJsonDepth = 512;

/// Largest scenario file read (64 MiB: a million-worker `network.nodes` list fits).
inline constexpr std::size_t kMaxScenarioBytes = std::size_t(64) << 20;

/// Nesting depth of the JSON text (arrays and objects), skipping strings and `//`, `/* */`
/// comments. Stops counting once it exceeds `cap`, so the cost is linear in the text.
std::size_t json_nesting_depth(std::string_view text, std::size_t cap = kMaxJsonDepth);

/// Throws InputError(where, ...) when the text nests deeper than kMaxJsonDepth.
void check_json_depth(std::string_view text, const std::string& where);

/// Parses a command-line value (`--set`, `--grid`): JSON when it parses, else the raw
/// text as a string (so `1e999` is the string "1e999"). Refuses (InputError at `where`)
/// nesting beyond kMaxJsonDepth.
nlohmann::json parse_command_line_value(const std::string& text, const std::string& where);

}  // namespace dlsim::sim
