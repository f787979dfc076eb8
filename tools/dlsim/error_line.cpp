#include "tools/dlsim/error_line.hpp"

#include <cstdio>

namespace dlsim::tool {
namespace {

constexpr std::size_t kWhereBudget = 200;
constexpr std::size_t kWhatBudget = 1000;

}  // namespace

std::string one_line(std::string_view text, std::size_t budget) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (out.size() >= budget) {
      // Do not leave a cut UTF-8 sequence before the ellipsis.
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80)
        out.pop_back();
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
      return out + "...";
    }
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

void print_error(std::string_view where, std::string_view what) {
  std::fprintf(stderr, "dlsim: error: %s: %s\n", one_line(where, kWhereBudget).c_str(),
               one_line(what, kWhatBudget).c_str());
}

void print_error(std::string_view what) {
  std::fprintf(stderr, "dlsim: error: %s\n", one_line(what, kWhatBudget).c_str());
}

std::string quoted(std::string_view text) {
  return "\"" + one_line(text, 60) + "\"";
}

}  // namespace dlsim::tool
