#include "sim/scenario/messages.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace dlsim::sim::messages {
namespace {

bool is_identifier(std::string_view key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

}  // namespace

std::string child_path(std::string_view parent, std::string_view key) {
  // No key of the table is this long: show a hostile one shortened, so an error stays
  // one short line.
  constexpr std::size_t kLongest = 64;
  if (key.size() > kLongest) {
    std::string start(key.substr(0, kLongest - 4));
    while (!start.empty() && (static_cast<unsigned char>(start.back()) & 0xC0) == 0x80)
      start.pop_back();  // do not cut a UTF-8 sequence
    if (!start.empty() && static_cast<unsigned char>(start.back()) >= 0xC0) start.pop_back();
    return std::string(parent) + "[" +
           nlohmann::json(start).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
           "...]";
  }
  if (!is_identifier(key)) {
    return std::string(parent) + "[" + nlohmann::json(std::string(key)).dump() + "]";
  }
  if (parent.empty()) return std::string(key);
  return std::string(parent) + "." + std::string(key);
}

std::string index_path(std::string_view parent, std::size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

std::string shown(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

std::string join(const std::vector<std::string>& words, std::string_view separator) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += separator;
    out += w;
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // d[i][j]: distance between the first i chars of a and the first j chars of b.
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::optional<std::string> closest(std::string_view word,
                                   const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 3;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: skip what cannot be close
    // (this keeps a 20 MB key from costing a 20 MB x 20 char table per candidate).
    const std::size_t gap =
        word.size() > c.size() ? word.size() - c.size() : c.size() - word.size();
    if (gap >= best_distance) continue;
    const std::size_t d = edit_distance(word, c);
    // A one-letter word is within distance 2 of everything short; require some overlap.
    if (d < best_distance && d < std::max(word.size(), c.size())) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto guess = closest(word, candidates);
  return guess ? " (did you mean \"" + *guess + "\"?)" : "";
}

std::string number_text(double x) {
  if (std::fabs(x) < 1e15 && x == std::floor(x)) {
    return std::to_string(static_cast<long long>(x));
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

std::string system_error_text(int error) {
  std::string text = std::strerror(error);
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') text[0] = char(text[0] - 'A' + 'a');
  return text;
}

}  // namespace dlsim::sim::messages
