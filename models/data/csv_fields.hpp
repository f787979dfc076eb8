// The field-level rules of dlsim's comma-separated files (csv, year-prediction-msd):
// fields split at commas and trimmed of blanks, numbers in full (no trailing text),
// finite, with an optional leading '+'.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dlsim::models {

/// `s` without leading and trailing blanks, tabs and carriage returns.
std::string_view trim(std::string_view s);

/// The comma-separated fields of `line`, each trimmed.
std::vector<std::string_view> split_fields(std::string_view line);

/// The finite number `field` holds; throws DataError(where, ...) naming `column`.
double parse_number(std::string_view field, const std::string& where, std::string_view column);

}  // namespace dlsim::models
