// `dlsim run --threads N` and `--profile` (README "Performance"): parsing the thread
// count (a whole number >= 0; 0 = every hardware thread) and printing the wall-time
// split of summary.json `totals` as a table on stderr.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace dlsim::tool {

/// The --threads value, resolved (0 → hardware threads); InputError("--threads", ...)
/// unless `text` is a whole number >= 0.
int parse_threads(const std::string& text);

/// The --profile table: math, compression, metrics and engine seconds with their share
/// of wall_s, events and events/s, peak RSS and threads.
void print_profile(std::FILE* out, const nlohmann::json& summary);

}  // namespace dlsim::tool
