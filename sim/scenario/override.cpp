// apply_override: one `--set a.b.c=VALUE` (docs/design.md §3). VALUE is JSON when it
// parses as JSON (8, true, {"kind":"none"}, "\"quoted\""), else the raw text
// (1Gbps). Missing objects along the path are created; a JSON null removes the key,
// as in a JSON merge patch, so that `--set stop.epochs=null` drops a stop condition.
#include <string>
#include <vector>

#include "sim/scenario/json_limits.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/messages.hpp"

namespace dlsim::sim {
namespace {

std::vector<std::string> split_key(std::string_view key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = key.find('.', start);
    parts.emplace_back(key.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

}  // namespace

void apply_override(nlohmann::json& doc, std::string_view assignment) {
  // Command-line bytes need not be UTF-8, but every string in a scenario must be (JSON
  // output of the resolved scenario would fail later): refuse them here.
  std::string quoted;
  try {
    quoted = nlohmann::json(std::string(assignment)).dump();
  } catch (const nlohmann::json::type_error&) {
    throw InputError("--set", "not valid UTF-8 text");
  }
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    throw InputError("--set", "expected KEY=VALUE, got " + quoted);
  }
  const std::string_view key = assignment.substr(0, eq);
  const std::string text(assignment.substr(eq + 1));
  const std::vector<std::string> parts = split_key(key);
  for (const auto& part : parts) {
    if (part.empty()) throw InputError("--set", "empty key in " + quoted);
  }

  if (parts.size() > kMaxJsonDepth)
    throw InputError("--set",
                     "key nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  nlohmann::json value = parse_command_line_value(text, "--set");

  if (doc.is_null()) doc = nlohmann::json::object();
  if (!doc.is_object())
    throw InputError("--set", "the scenario is not an object; cannot apply " + quoted);
  nlohmann::json* at = &doc;
  std::string walked;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    walked = walked.empty() ? parts[i] : walked + "." + parts[i];
    nlohmann::json& next = (*at)[parts[i]];
    if (next.is_null()) next = nlohmann::json::object();
    if (!next.is_object()) {
      throw InputError("--set", "cannot apply " + quoted + ": " + walked + " is " +
                                    messages::shown(next) + ", not an object");
    }
    at = &next;
  }
  if (value.is_null()) {
    at->erase(parts.back());
  } else {
    (*at)[parts.back()] = std::move(value);
  }
}

}  // namespace dlsim::sim
