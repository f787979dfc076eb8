#include "sim/sweep/run_id.hpp"

#include <cstdint>
#include <map>
#include <set>

#include <fmt/format.h>

namespace dlsim::sim {

namespace {

constexpr std::size_t kMaxIdLength = 100;

bool allowed(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '+' || c == '=' || c == '-';
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string last_component(const std::string& key) {
  const std::size_t dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

}  // namespace

std::string value_label(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::string out;  // separators appended on their own: GCC bug 105651 (-Wrestrict)
    for (const auto& v : value) {
      if (!out.empty()) out += 'x';
      out += value_label(v);
    }
    return out.empty() ? "empty" : out;
  }
  if (value.is_object()) {
    std::string out;
    if (value.contains("kind")) out = value_label(value["kind"]);
    for (const auto& [k, v] : value.items())
      if (k != "kind") {
        if (!out.empty()) out += '-';
        out += value_label(v);
      }
    return out.empty() ? "empty" : out;
  }
  return value.dump();
}

std::string sanitize_run_id(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (allowed(c))
      out += c;
    else if (out.empty() || out.back() != '-')
      out += '-';
  }
  while (!out.empty() && (out.front() == '.' || out.front() == '-')) out.erase(out.begin());
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.empty()) out = "run";
  if (out.size() > kMaxIdLength)
    out = out.substr(0, kMaxIdLength - 17) + fmt::format("-{:016x}", fnv1a(text));
  return out;
}

std::vector<std::string> make_run_ids(const std::vector<SweepAxis>& axes,
                                      const std::vector<GridPoint>& points, int repeats) {
  std::map<std::string, int> uses;
  for (const SweepAxis& a : axes) ++uses[last_component(a.key)];
  std::vector<std::string> names;
  for (const SweepAxis& a : axes)
    names.push_back(uses[last_component(a.key)] > 1 ? a.key : last_component(a.key));

  std::vector<std::string> ids;
  std::set<std::string> taken;
  for (const GridPoint& p : points) {
    std::string id;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      if (!id.empty()) id += '_';
      id += sanitize_run_id(names[a] + "=" + value_label(axes[a].values[p.choice[a]]));
    }
    if (repeats > 1) id += (id.empty() ? "r" : "_r") + std::to_string(p.repeat);
    id = sanitize_run_id(id);
    std::string unique = id;
    for (int n = 2; taken.count(unique); ++n) unique = id + "~" + std::to_string(n);
    taken.insert(unique);
    ids.push_back(unique);
  }
  return ids;
}

}  // namespace dlsim::sim
