// scenario_schema: the JSON Schema (draft 2020-12) of scenario files, generated
// from the key table in spec.cpp. Every property carries a description and, when
// it has one, its default (the resolved default, as it appears in summary.json).
// Objects with kinds become a `oneOf` of one closed branch per kind; the branch of
// the default kind is the only one that does not require the discriminator key.
#include <cmath>
#include <cstdint>

#include "sim/scenario/load.hpp"
#include "sim/scenario/messages.hpp"
#include "sim/scenario/spec.hpp"

namespace dlsim::sim {
namespace {

using nlohmann::json;
using spec::Key;
using spec::Object;
using spec::Type;
using spec::Value;

// A bound as JSON: 2 rather than 2.0 when it is integral.
json bound_json(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) return static_cast<std::int64_t>(x);
  return x;
}

void add_bounds(json& s, const Value& value) {
  if (value.min)
    s[value.min->inclusive ? "minimum" : "exclusiveMinimum"] = bound_json(value.min->value);
  if (value.max)
    s[value.max->inclusive ? "maximum" : "exclusiveMaximum"] = bound_json(value.max->value);
}

// "<number><optional spaces><unit>" with the units of one quantity kind.
json quantity_schema(const Value& value, const char* units) {
  json number = {{"type", "number"}};
  add_bounds(number, value);
  const std::string pattern =
      std::string(R"(^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)? *()") + units + ")$";
  return {{"oneOf", json::array({number, {{"type", "string"}, {"pattern", pattern}}})}};
}

json object_schema(const Object& object);

json value_schema(const Value& value) {
  json s = json::object();
  const auto bounds = [&] { add_bounds(s, value); };
  switch (value.type) {
    case Type::any:
      break;
    case Type::boolean:
      s["type"] = "boolean";
      break;
    case Type::integer:
      s["type"] = "integer";
      bounds();
      break;
    case Type::number:
      s["type"] = "number";
      bounds();
      break;
    case Type::string:
      s["type"] = "string";
      if (!value.choices.empty()) s["enum"] = value.choices;
      if (value.non_empty) s["minLength"] = 1;
      break;
    case Type::time:
      s = quantity_schema(value, "ns|us|ms|s");
      break;
    case Type::rate:
      s = quantity_schema(value, "bps|Kbps|Mbps|Gbps|Tbps|Bps|KBps|MBps|GBps");
      break;
    case Type::size:
      s = quantity_schema(value, "b|Kb|Mb|Gb|B|KB|MB|GB");
      break;
    case Type::flops:
      s = quantity_schema(value, "FLOPS|KFLOPS|MFLOPS|GFLOPS|TFLOPS");
      break;
    case Type::array:
      s["type"] = "array";
      s["items"] = value_schema(*value.items);
      if (value.non_empty) s["minItems"] = 1;
      break;
    case Type::object:
      s = object_schema(*value.object);
      break;
  }
  return s;
}

json key_schema(const Key& key, const std::string& path) {
  json s = value_schema(key.value);
  std::string description = key.doc;
  if (key.value.type != Type::object) description += " Type: " + spec::type_text(key.value) + ".";
  if (key.dynamic) description += " Default: " + key.default_doc + ".";
  if (key.presence == Key::Presence::required) description += " Required.";
  s["description"] = description;
  if (key.presence == Key::Presence::defaulted) {
    // The default for an empty scenario, resolved like a user value would be.
    const json empty = json::object();
    s["default"] = spec::resolve_value(key.value, key.default_for(empty), path, empty);
  }
  return s;
}

// Properties and required keys of a closed object holding `keys`.
void add_keys(json& s, const std::vector<Key>& keys) {
  for (const Key& k : keys) {
    s["properties"][k.name] = key_schema(k, k.name);
    if (k.presence == Key::Presence::required) s["required"].push_back(k.name);
  }
}

json object_schema(const Object& object) {
  json s = {{"type", "object"}};
  if (object.min_keys > 0) s["minProperties"] = object.min_keys;
  if (object.max_keys) s["maxProperties"] = *object.max_keys;
  if (!object.discriminator) {
    s["properties"] = json::object();
    add_keys(s, object.keys);
    if (object.map_values) {
      s["additionalProperties"] = value_schema(*object.map_values);
      s["propertyNames"] = {{"minLength", 1}};
    } else {
      s["additionalProperties"] = false;
    }
    return s;
  }

  const Key& d = *object.discriminator;
  const std::string default_kind = d.fallback.get<std::string>();
  s["properties"][d.name] = key_schema(d, d.name);
  for (const auto& variant : object.variants) {
    json branch = {
        {"title", d.name + " " + variant.name},
        {"description", variant.doc},
        {"properties", {{d.name, {{"const", variant.name}, {"description", variant.doc}}}}},
        {"additionalProperties", false}};
    if (variant.name != default_kind) branch["required"].push_back(d.name);
    add_keys(branch, object.keys);
    add_keys(branch, variant.keys);
    s["oneOf"].push_back(branch);
  }
  return s;
}

}  // namespace

json scenario_schema() {
  json s = object_schema(spec::scenario());
  s["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  s["$id"] = "https://github.com/dlsim/dlsim/scenario.schema.json";
  s["title"] = "dlsim scenario";
  s["description"] =
      "A dlsim scenario file (docs/design.md section 4). Quantities are numbers in SI base units "
      "(seconds, bits per second, bits, FLOP/s) or strings with a unit such as \"5us\", "
      "\"10Gbps\", \"64B\", \"10GFLOPS\".";
  return s;
}

}  // namespace dlsim::sim
