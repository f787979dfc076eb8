// Command-line value checks with short messages (CLI11's PositiveNumber prints its range
// as a 309-digit number, and an unsigned option silently wraps "-1" to 2^64 - 1).
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace dlsim::tool {

/// An integer in [minimum, maximum], written in decimal digits (no sign for minimum >= 0).
inline CLI::Validator integer_at_least(std::int64_t minimum, std::int64_t maximum = INT64_MAX) {
  return CLI::Validator(
      [minimum, maximum](std::string& text) -> std::string {
        std::int64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (error == std::errc::result_out_of_range ||
            (error == std::errc() && stop == end && value > maximum))
          return "must be at most " + std::to_string(maximum) + ", got " + text;
        if (error != std::errc() || stop != end) return "expected an integer, got " + text;
        if (value < minimum) return "must be at least " + std::to_string(minimum) + ", got " + text;
        return "";
      },
      minimum > 0 ? "INT>=" + std::to_string(minimum) : "INT>=0");
}

}  // namespace dlsim::tool
