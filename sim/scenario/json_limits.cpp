#include "sim/scenario/json_limits.hpp"

#include <cmath>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/messages.hpp"

namespace dlsim::sim {

std::size_t json_nesting_depth(std::string_view text, std::size_t cap) {
  std::size_t depth = 0, deepest = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string_view::npos) break;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i = text.find("*/", i + 2);
      if (i == std::string_view::npos) break;
      ++i;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > cap) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

void check_json_depth(std::string_view text, const std::string& where) {
  if (json_nesting_depth(text) > kMaxJsonDepth)
    throw InputError(where, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                                " levels of arrays and objects");
}

nlohmann::json parse_command_line_value(const std::string& text, const std::string& where) {
  check_json_depth(text, where);
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return text;
  check_finite_numbers(value, "", where);
  return value;
}

void check_finite_numbers(const nlohmann::json& doc, const std::string& path,
                          const std::string& where) {
  if (doc.is_number_float() && !std::isfinite(doc.get<double>()))
    throw InputError(path.empty() ? where : path,
                     "number out of range (beyond ±1.8e308, the largest double)");
  if (doc.is_object()) {
    for (const auto& [key, value] : doc.items())
      check_finite_numbers(value, messages::child_path(path, key), where);
  } else if (doc.is_array()) {
    for (std::size_t i = 0; i < doc.size(); ++i)
      check_finite_numbers(doc[i], messages::index_path(path, i), where);
  }
}

}  // namespace dlsim::sim
