// Small helpers for the wording of input errors: JSON paths, how a given value is
// shown, and "did you mean" suggestions for misspelt keys and kinds.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlsim::sim::messages {

/// `parent.key`, or just `key` at the root; keys that are not plain identifiers
/// (sweep grid keys such as "network.bandwidth") are written `parent["a.b"]`.
std::string child_path(std::string_view parent, std::string_view key);

/// `parent[i]`.
std::string index_path(std::string_view parent, std::size_t index);

/// The value as JSON text, shortened to about 60 characters.
std::string shown(const nlohmann::json& value);

/// `a, b, c`.
std::string join(const std::vector<std::string>& words, std::string_view separator = ", ");

/// Optimal-string-alignment edit distance (insertions, deletions, substitutions and
/// swaps of neighbours each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` if it is within edit distance 2 (ties: first).
std::optional<std::string> closest(std::string_view word,
                                   const std::vector<std::string>& candidates);

/// ` (did you mean "x"?)` or empty.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

/// A bound written compactly: 0, 1, 0.5, 1e+06.
std::string number_text(double x);

/// strerror(error) starting lower-case, for "cannot read file: no such file or directory".
std::string system_error_text(int error);

}  // namespace dlsim::sim::messages
