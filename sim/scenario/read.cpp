// read_scenario_file: the file's text parsed as JSON with comments (`// ...` to the end
// of the line and `/* ... */`, so experiment files can explain their choices). Syntax
// errors are reported with a 1-based line and column computed from nlohmann's byte
// offset into the original text, comments included; a key repeated within one object is
// an error rather than last-one-wins.
#include <set>
#include <vector>

#include "sim/scenario/bounded_file.hpp"
#include "sim/scenario/json_limits.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/messages.hpp"

namespace dlsim::sim {
namespace {

// "… parse error at line 3, column 5: syntax error while parsing object - unexpected
// '}'; expected string literal" -> "unexpected '}'; expected string literal".
std::string short_reason(const std::string& what) {
  std::string reason = what;
  if (const auto colon = reason.find(": "); colon != std::string::npos) {
    reason = reason.substr(colon + 2);
  }
  if (const auto dash = reason.find(" - "); dash != std::string::npos) {
    reason = reason.substr(dash + 3);
  }
  return reason;
}

// Where the first `/*` that is never closed starts (a byte offset), skipping strings and
// `//` comments; npos when every block comment is closed. nlohmann reports such a
// comment at the end of the file, which says nothing about where to look.
std::size_t unterminated_comment(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) return std::string::npos;
    } else if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      if (end == std::string::npos) return i;
      i = end + 1;
    }
  }
  return std::string::npos;
}

// "line L, column C" (1-based) of byte offset `at` in `text`.
std::string position(const std::string& text, std::size_t at) {
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(at - line_start + 1);
}

}  // namespace

nlohmann::json read_scenario_file(const std::string& path) {
  const std::string text = read_bounded_text(path, kMaxScenarioBytes, "scenario");
  check_json_depth(text, path);
  // nlohmann stops at a NUL byte and ignores what follows; JSON text never holds one.
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
    throw InputError(path, "invalid JSON at " + position(text, nul) + ": a NUL byte");

  // Duplicate keys: one set of seen keys per open object.
  std::vector<std::set<std::string>> seen;
  std::string duplicate;
  const nlohmann::json::parser_callback_t on_event =
      [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using Event = nlohmann::json::parse_event_t;
        if (event == Event::object_start) seen.emplace_back();
        if (event == Event::object_end && !seen.empty()) seen.pop_back();
        if (event == Event::key && !seen.empty() && duplicate.empty() &&
            !seen.back().insert(parsed.get<std::string>()).second) {
          duplicate = parsed.get<std::string>();
        }
        return true;
      };

  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text, on_event, /*allow_exceptions=*/true,
                                /*ignore_comments=*/true);
  } catch (const nlohmann::json::parse_error& e) {
    if (const std::size_t open = unterminated_comment(text); open != std::string::npos)
      throw InputError(
          path, "invalid JSON at " + position(text, open) + ": a /* comment that is never closed");
    // e.byte is the 1-based offset of the character where parsing stopped.
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    throw InputError(path,
                     "invalid JSON at " + position(text, end) + ": " + short_reason(e.what()));
  } catch (const nlohmann::json::out_of_range& e) {
    // nlohmann refuses a number beyond a double's range ("number overflow parsing
    // '1e999'") without a position.
    std::string what = e.what();
    const std::size_t quote = what.find('\'');
    const std::string literal = quote == std::string::npos ? "" : " " + what.substr(quote);
    throw InputError(path, "invalid JSON: number out of range" + literal +
                               " (beyond ±1.8e308, the largest double)");
  }
  if (!duplicate.empty())
    throw InputError(path, "duplicate key " + messages::shown(nlohmann::json(duplicate)));
  check_finite_numbers(doc, "", path);
  return doc;
}

}  // namespace dlsim::sim
