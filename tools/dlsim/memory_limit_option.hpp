// `--memory-limit SIZE` of dlsim run, validate and sweep (docs/design.md §3): the memory
// the run may use, in place of the limit the machine, the process and its cgroup impose
// (sim/run/memory_guard.hpp). SIZE is a size quantity ("2.6GB", "512MB"; B KB MB GB are
// bytes, b Kb Mb Gb bits), parsed like scenario sizes (sim/scenario/quantity.hpp).
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace dlsim::tool {

/// Adds --memory-limit to `command`, storing its text in `text`.
void add_memory_limit_option(CLI::App* command, std::string& text);

/// The limit in bytes, nothing when `text` is empty; InputError("--memory-limit", ...)
/// unless it is a positive size.
std::optional<double> parse_memory_limit(const std::string& text);

}  // namespace dlsim::tool
