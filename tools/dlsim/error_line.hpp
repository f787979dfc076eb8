// The one error line of the command line (docs/design.md §3): `dlsim: error: <where>:
// <what>`. Whatever the input put into <where> and <what> (a key with a newline, a
// 1 MB line of a data file), the line stays one line of bounded length: control
// characters are escaped (\n, \t, \xNN) and each part is shortened to a fixed budget.
#pragma once

#include <string>
#include <string_view>

namespace dlsim::tool {

/// `text` with control characters escaped and cut to at most `budget` bytes (plus "...").
std::string one_line(std::string_view text, std::size_t budget);

/// Prints `dlsim: error: <where>: <what>` on stderr.
void print_error(std::string_view where, std::string_view what);

/// Prints `dlsim: error: <what>` on stderr.
void print_error(std::string_view what);

/// `text` in double quotes, as one bounded line.
std::string quoted(std::string_view text);

}  // namespace dlsim::tool
