// reference_markdown: the scenario key reference for the README, generated from
// the key table in spec.cpp so that the documentation cannot drift from what the
// validator accepts.
#include <algorithm>

#include "sim/scenario/messages.hpp"
#include "sim/scenario/spec.hpp"

namespace dlsim::sim::spec {
namespace {

using nlohmann::json;

std::string default_text(const Key& key) {
  switch (key.presence) {
    case Key::Presence::required:
      return "required";
    case Key::Presence::optional:
      return "(none)";
    case Key::Presence::defaulted:
      break;
  }
  if (key.dynamic) return key.default_doc;
  const json empty = json::object();
  std::string text = "`";
  text += resolve_value(key.value, key.fallback, key.name, empty).dump();
  text += '`';
  return text;
}

// `|` would end a Markdown table cell.
std::string cell(std::string text) {
  for (std::size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) {
    text.replace(at, 1, "\\|");
  }
  return text;
}

void rows(const Object& object, const std::string& path, const std::string& condition,
          std::string& out);

// One table row. Built by appending: GCC 12 warns (-Wrestrict, a false positive)
// on chains of `"literal" + std::string` here.
void add_row(std::string& out, const std::string& key_path, const std::string& type,
             const std::string& fallback, const std::string& doc) {
  out += "| `";
  out += key_path;
  out += "` | ";
  out += cell(type);
  out += " | ";
  out += cell(fallback);
  out += " | ";
  out += cell(doc);
  out += " |\n";
}

void row(const Key& key, const std::string& path, const std::string& condition, std::string& out) {
  std::string key_path = path;
  key_path += '.';
  key_path += key.name;
  std::string doc;
  if (!condition.empty()) (doc += '(').append(condition) += ") ";
  doc += key.doc;
  add_row(out, key_path, type_text(key.value), default_text(key), doc);
  const Value* inner = &key.value;
  std::string inner_path = key_path;
  if (inner->type == Type::array && inner->items->type == Type::object) {
    inner = inner->items.get();
    inner_path += "[]";
  }
  if (inner->type == Type::object) rows(*inner->object, inner_path, condition, out);
}

void rows(const Object& object, const std::string& path, const std::string& condition,
          std::string& out) {
  if (object.discriminator) row(*object.discriminator, path, condition, out);
  for (const Key& k : object.keys) row(k, path, condition, out);
  // A key shared by several kinds is listed once per distinct definition, with every kind
  // that takes it so defined (e.g. `model.init` differs between linear models and CNNs).
  std::vector<std::string> listed;
  for (const Variant& v : object.variants) {
    for (const Key& k : v.keys) {
      if (std::find(listed.begin(), listed.end(), k.name) != listed.end()) continue;
      listed.push_back(k.name);
      struct Definition {
        std::string rendered;  // its rows without a condition: equal text, equal definition
        const Key* key;
        std::vector<std::string> kinds;
      };
      std::vector<Definition> definitions;
      for (const Variant& other : object.variants) {
        for (const Key& o : other.keys) {
          if (o.name != k.name) continue;
          std::string rendered;
          row(o, path, "", rendered);
          auto same = std::find_if(definitions.begin(), definitions.end(),
                                   [&](const Definition& d) { return d.rendered == rendered; });
          if (same == definitions.end())
            definitions.push_back({std::move(rendered), &o, {other.name}});
          else
            same->kinds.push_back(other.name);
        }
      }
      for (const Definition& d : definitions) {
        std::string when = path;
        when += '.';
        when += object.discriminator->name;
        when += " = ";
        when += messages::join(d.kinds, " or ");
        row(*d.key, path, condition.empty() ? when : condition + ", " + when, out);
      }
    }
  }
}

}  // namespace

std::string reference_markdown() {
  std::string out = "### top level\n\n| key | type | default | description |\n|---|---|---|---|\n";
  for (const Key& key : scenario().keys) {
    if (key.value.type != Type::object) {
      add_row(out, key.name, type_text(key.value), default_text(key), key.doc);
    }
  }
  for (const Key& section : scenario().keys) {
    if (section.value.type != Type::object) continue;
    out += "\n### `" + section.name + "`\n\n" + section.doc + "\n\n";
    out += "| key | type | default | description |\n|---|---|---|---|\n";
    rows(*section.value.object, section.name, "", out);
  }
  return out;
}

}  // namespace dlsim::sim::spec
