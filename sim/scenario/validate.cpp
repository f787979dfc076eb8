// resolve_scenario: strict validation and default filling, driven entirely by the
// key table in spec.cpp. Values the user wrote are kept as written ("10Gbps" stays
// a string); absent keys get their documented default, itself resolved so that
// nested defaults appear too.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "sim/scenario/load.hpp"
#include "sim/scenario/messages.hpp"
#include "sim/scenario/quantity.hpp"
#include "sim/scenario/spec.hpp"

namespace dlsim::sim {
namespace {

using messages::child_path;
using messages::join;
using messages::shown;
using nlohmann::json;
using spec::Key;
using spec::Object;
using spec::Type;
using spec::Value;
using spec::Variant;

bool is_integral(const json& raw) {
  if (raw.is_number_integer()) return true;  // also unsigned
  if (!raw.is_number_float()) return false;
  const double x = raw.get<double>();
  return std::isfinite(x) && x == std::floor(x);
}

// Integers are read as int64 by to_scenario.
bool fits_int64(const json& raw) {
  if (raw.is_number_unsigned()) return raw.get<std::uint64_t>() <= std::uint64_t(INT64_MAX);
  if (raw.is_number_integer()) return true;
  return std::fabs(raw.get<double>()) < 9.2e18;
}

[[noreturn]] void wrong_type(const std::string& path, const char* expected, const json& raw) {
  throw InputError(path, std::string("must be ") + expected + ", got " + shown(raw));
}

// Throws unless `x` (in SI base units) lies within the bounds of `value`.
void check_bounds(const Value& value, double x, const json& raw, const std::string& path) {
  if (spec::within_bounds(value, x)) return;
  using messages::number_text;
  std::string rule;
  if (value.min && value.max) {
    rule = "in " + std::string(value.min->inclusive ? "[" : "(") + number_text(value.min->value) +
           ", " + number_text(value.max->value) + (value.max->inclusive ? "]" : ")");
  } else if (value.min) {
    rule = (value.min->inclusive ? ">= " : "> ") + number_text(value.min->value);
  } else {
    rule = (value.max->inclusive ? "<= " : "< ") + number_text(value.max->value);
  }
  throw InputError(path, "must be " + rule + ", got " + shown(raw));
}

// Runs a quantity parser, turning its std::invalid_argument into an InputError.
template <typename Parse>
auto parse_at(const std::string& path, const json& raw, Parse parse) {
  try {
    return parse(raw);
  } catch (const std::invalid_argument& e) {
    throw InputError(path, e.what());
  }
}

class Resolver {
 public:
  explicit Resolver(const json& root) : root_(root) {}

  json value(const Value& spec, const json& raw, const std::string& path) const {
    switch (spec.type) {
      case Type::any:
        return raw;
      case Type::boolean:
        if (!raw.is_boolean()) wrong_type(path, "a boolean (true or false)", raw);
        return raw;
      case Type::integer:
        if (!is_integral(raw)) wrong_type(path, "an integer", raw);
        check_bounds(spec, raw.get<double>(), raw, path);
        if (!fits_int64(raw)) throw InputError(path, "integer out of range, got " + shown(raw));
        return raw;
      case Type::number:
        if (!raw.is_number()) wrong_type(path, "a number", raw);
        if (!std::isfinite(raw.get<double>())) wrong_type(path, "a finite number", raw);
        check_bounds(spec, raw.get<double>(), raw, path);
        return raw;
      case Type::string:
        return string(spec, raw, path);
      case Type::time: {
        const SimTime t = parse_at(path, raw, parse_time);
        // 1e-300 s is > 0 but 0 ps: say why a positive time is refused.
        if (!spec::within_bounds(spec, t.seconds()) && t.ps == 0 && parse_time_ps(raw) != 0.0 &&
            spec::within_bounds(spec, 1e-12))
          throw InputError(
              path, "rounds to 0 ps (the clock counts whole picoseconds), got " + shown(raw));
        check_bounds(spec, t.seconds(), raw, path);
        return raw;
      }
      case Type::rate:
        check_bounds(spec, parse_at(path, raw, parse_rate), raw, path);
        return raw;
      case Type::flops:
        check_bounds(spec, parse_at(path, raw, parse_flops), raw, path);
        return raw;
      case Type::size: {
        const double bits = parse_at(path, raw, parse_size_bits);
        if (std::fabs(bits - std::round(bits)) > 1e-6 * std::max(1.0, std::fabs(bits))) {
          throw InputError(path, "must be a whole number of bits, got " + shown(raw));
        }
        check_bounds(spec, bits, raw, path);
        // Sizes become uint64 bit counts and add up in counters: keep them far from 2^64.
        if (bits > 0x1p53)
          throw InputError(
              path, "too large: a size is at most 2^53 bits (about 1.1 PB), got " + shown(raw));
        return raw;
      }
      case Type::array:
        return array(spec, raw, path);
      case Type::object:
        return object(*spec.object, raw, path);
    }
    return raw;
  }

  json object(const Object& spec, const json& raw, const std::string& path) const {
    if (!raw.is_object()) wrong_type(path.empty() ? "scenario" : path, "an object", raw);

    const Variant* variant = spec.discriminator ? choose_variant(spec, raw, path) : nullptr;
    std::vector<const Key*> keys;
    if (spec.discriminator) keys.push_back(&*spec.discriminator);
    for (const Key& k : spec.keys) keys.push_back(&k);
    if (variant) {
      for (const Key& k : variant->keys) keys.push_back(&k);
    }
    const auto accepted = [&](const std::string& name) {
      return std::any_of(keys.begin(), keys.end(), [&](const Key* k) { return k->name == name; });
    };

    for (const auto& [name, given] : raw.items()) {
      if (!accepted(name) && !spec.map_values) unknown_key(spec, variant, keys, name, path);
    }
    check_key_count(spec, raw, path);

    json out = json::object();
    for (const Key* k : keys) {
      const std::string key_path = child_path(path, k->name);
      if (raw.contains(k->name)) {
        out[k->name] = value(k->value, raw[k->name], key_path);
        continue;
      }
      switch (k->presence) {
        case Key::Presence::defaulted:
          out[k->name] = value(k->value, k->default_for(root_), key_path);
          break;
        case Key::Presence::required: {
          std::string what = "missing required key \"" + k->name + "\"";
          if (variant) {
            what += " for " + spec.discriminator->name + " \"" + variant->name + "\"";
          }
          throw InputError(key_path, what);
        }
        case Key::Presence::optional:
          break;
      }
    }
    if (spec.map_values) {
      for (const auto& [name, given] : raw.items()) {
        if (!accepted(name)) out[name] = value(*spec.map_values, given, child_path(path, name));
      }
    }
    return out;
  }

 private:
  json string(const Value& spec, const json& raw, const std::string& path) const {
    if (!raw.is_string()) wrong_type(path, "a string", raw);
    const auto& text = raw.get_ref<const std::string&>();
    if (!spec.choices.empty() &&
        std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end()) {
      throw InputError(path, "unknown value " + shown(raw) + "; expected one of: " +
                                 join(spec.choices) + messages::did_you_mean(text, spec.choices));
    }
    if (spec.non_empty && text.empty()) throw InputError(path, "must not be empty");
    return raw;
  }

  json array(const Value& spec, const json& raw, const std::string& path) const {
    if (!raw.is_array()) wrong_type(path, "an array", raw);
    if (spec.non_empty && raw.empty()) throw InputError(path, "must not be empty");
    json out = json::array();
    for (std::size_t i = 0; i < raw.size(); ++i) {
      out.push_back(value(*spec.items, raw[i], messages::index_path(path, i)));
    }
    return out;
  }

  // The variant named by the discriminator key, or the default one.
  const Variant* choose_variant(const Object& spec, const json& raw,
                                const std::string& path) const {
    const Key& d = *spec.discriminator;
    if (!raw.contains(d.name)) {
      const json kind = d.default_for(root_);
      return spec.find_variant(kind.get<std::string>());
    }
    const std::string d_path = child_path(path, d.name);
    const json& kind = raw[d.name];
    if (!kind.is_string()) wrong_type(d_path, "a string", kind);
    const std::string& name = kind.get_ref<const std::string&>();
    if (const Variant* v = spec.find_variant(name)) return v;
    const auto names = spec.variant_names();
    throw InputError(d_path, "unknown " + d.name + " " + shown(kind) + "; expected one of: " +
                                 join(names) + messages::did_you_mean(name, names));
  }

  [[noreturn]] static void unknown_key(const Object& spec, const Variant* variant,
                                       const std::vector<const Key*>& keys, const std::string& name,
                                       const std::string& path) {
    const std::string key_path = child_path(path, name);
    // A key of another kind: say which kinds take it.
    std::vector<std::string> owners;
    for (const Variant& v : spec.variants) {
      if (std::any_of(v.keys.begin(), v.keys.end(), [&](const Key& k) { return k.name == name; })) {
        owners.push_back(v.name);
      }
    }
    if (variant && !owners.empty()) {
      const std::string& d = spec.discriminator->name;
      throw InputError(key_path, "unknown key " + messages::shown(json(name)) + " for " + d +
                                     " \"" + variant->name + "\" (valid for " + d + ": " +
                                     join(owners) + ")");
    }
    std::vector<std::string> names;
    for (const Key* k : keys) names.push_back(k->name);
    const std::string hint = messages::did_you_mean(name, names);
    std::string what = "unknown key " + messages::shown(json(name));
    if (!hint.empty()) {
      what += hint;
    } else if (names.empty()) {
      what += "; this object takes no keys";
    } else {
      what += "; expected one of: " + join(names);
    }
    throw InputError(key_path, what);
  }

  static void check_key_count(const Object& spec, const json& raw, const std::string& path) {
    if (spec.min_keys == 0 && !spec.max_keys) return;
    if (raw.size() >= spec.min_keys && (!spec.max_keys || raw.size() <= *spec.max_keys)) return;
    std::vector<std::string> names, given;
    for (const Key& k : spec.keys) names.push_back(k.name);
    for (const auto& [name, v] : raw.items()) given.push_back(name);
    const bool exactly_one = spec.min_keys == 1 && spec.max_keys == 1;
    std::string what =
        std::string(exactly_one ? "must have exactly one of: " : "must have at least one of: ") +
        join(names) + "; got " + std::to_string(raw.size());
    if (!given.empty()) what += " (" + join(given) + ")";
    throw InputError(path.empty() ? "scenario" : path, what);
  }

  const json& root_;
};

}  // namespace

namespace spec {
json resolve_value(const Value& value, const json& raw, const std::string& path, const json& root) {
  return Resolver(root).value(value, raw, path);
}
}  // namespace spec

json resolve_scenario(const json& raw) {
  return Resolver(raw).object(spec::scenario(), raw, "");
}

}  // namespace dlsim::sim
