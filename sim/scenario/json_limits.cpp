#include "sim/scenario/json_limits.hpp"

#include "sim/scenario/input_error.hpp"

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
  return value;
}

}  // namespace dlsim::sim
