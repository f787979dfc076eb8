// read_scenario_file: the file's text parsed as JSON with comments (`// ...` to the end
// of the line and `/* ... */`, so experiment files can explain their choices). Syntax
// errors are reported with a 1-based line and column computed from nlohmann's byte
// offset into the original text, comments included; a key repeated within one object is
// an error rather than last-one-wins.
#include <unordered_set>
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

// nlohmann's DOM builder plus a check for keys repeated within one object. (A parser
// callback would do it too, but nlohmann's callback parser rescans the enclosing array
// at the end of every object: quadratic in the length of `network.nodes`.)
class CheckedDomBuilder {
 public:
  using Json = nlohmann::json;
  explicit CheckedDomBuilder(Json& result) : dom_(result, /*allow_exceptions=*/true) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(Json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(Json::number_float_t v, const Json::string_t& s) {
    return dom_.number_float(v, s);
  }
  bool string(Json::string_t& v) { return dom_.string(v); }
  bool binary(Json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) {
    seen_.emplace_back();
    return dom_.start_object(n);
  }
  bool key(Json::string_t& k) {
    if (!seen_.back().insert(k).second && duplicate_.empty()) duplicate_ = k;
    return dom_.key(k);
  }
  bool end_object() {
    seen_.pop_back();
    return dom_.end_object();
  }
  bool start_array(std::size_t n) { return dom_.start_array(n); }
  bool end_array() { return dom_.end_array(); }
  template <class Exception>
  bool parse_error(std::size_t at, const std::string& token, const Exception& error) {
    error_at_ = at;
    return dom_.parse_error(at, token, error);  // throws it
  }

  const std::string& duplicate() const { return duplicate_; }
  /// Byte offset of the token at which parsing failed.
  std::size_t error_at() const { return error_at_; }

 private:
  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  std::vector<std::unordered_set<std::string>> seen_;  // keys of each open object
  std::string duplicate_;
  std::size_t error_at_ = 0;
};

}  // namespace

nlohmann::json read_scenario_file(const std::string& path) {
  return parse_scenario_text(read_bounded_text(path, kMaxScenarioBytes, "scenario"), path);
}

nlohmann::json parse_scenario_text(const std::string& text, const std::string& path) {
  check_json_depth(text, path);
  // nlohmann stops at a NUL byte and ignores what follows; JSON text never holds one.
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
    throw InputError(path, "invalid JSON at " + position(text, nul) + ": a NUL byte");

  nlohmann::json doc;
  CheckedDomBuilder builder(doc);
  try {
    nlohmann::json::sax_parse(text, &builder, nlohmann::json::input_format_t::json,
                              /*strict=*/true, /*ignore_comments=*/true);
  } catch (const nlohmann::json::parse_error& e) {
    if (const std::size_t open = unterminated_comment(text); open != std::string::npos)
      throw InputError(
          path, "invalid JSON at " + position(text, open) + ": a /* comment that is never closed");
    // e.byte is the 1-based offset of the character where parsing stopped.
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    throw InputError(path,
                     "invalid JSON at " + position(text, end) + ": " + short_reason(e.what()));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double's range ("number overflow parsing '1e999'").
    const std::string what = e.what();
    const std::size_t quote = what.find('\'');
    const std::string literal = quote == std::string::npos ? "" : " " + what.substr(quote);
    throw InputError(
        path, "invalid JSON at " + position(text, std::min(builder.error_at(), text.size())) +
                  ": number out of range" + literal + " (beyond ±1.8e308, the largest double)");
  }
  if (!builder.duplicate().empty())
    throw InputError(path, "duplicate key " + messages::shown(nlohmann::json(builder.duplicate())));
  return doc;
}

}  // namespace dlsim::sim
