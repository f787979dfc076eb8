// The key table's vocabulary: the shape of one scenario value (type, range, choices),
// a key (name, value, doc, default), the keys of one kind (a Variant) and an object.
// Every kind of every registry (algorithms, compressors, models, data sources,
// topologies) declares its keys with these types in its own file; the generic
// validator, the JSON Schema and the key reference (sim/scenario) read them. This
// folder depends on nothing of dlsim, so models/ and topologies/ can use it too.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlsim::spec {

enum class Type {
  any,      // anything (sweep grid values)
  boolean,  //
  integer,  // a JSON number with an integral value
  number,   // a finite JSON number
  string,   // optionally restricted to `choices`
  time,     // quantity.hpp: seconds or "5us"
  rate,     // bits per second or "10Gbps"
  size,     // bits or "64B" (a whole number of bits)
  flops,    // FLOP/s or "10GFLOPS"
  array,    // of `items`
  object,   // described by `object`
};

/// A bound on a number, or on a quantity in SI base units (seconds, bit/s, bits).
struct Bound {
  double value = 0.0;
  bool inclusive = true;
};

struct Object;

/// The shape of one value.
struct Value {
  Type type = Type::any;
  std::optional<Bound> min;
  std::optional<Bound> max;
  std::vector<std::string> choices;      // allowed strings (empty: any string)
  bool non_empty = false;                // strings and arrays
  std::shared_ptr<const Value> items;    // array elements
  std::shared_ptr<const Object> object;  // object contents

  Value ge(double v) const { return with_min({v, true}); }
  Value gt(double v) const { return with_min({v, false}); }
  Value le(double v) const { return with_max({v, true}); }
  Value lt(double v) const { return with_max({v, false}); }
  Value nonempty() const {
    Value c = *this;
    c.non_empty = true;
    return c;
  }

 private:
  Value with_min(Bound b) const {
    Value c = *this;
    c.min = b;
    return c;
  }
  Value with_max(Bound b) const {
    Value c = *this;
    c.max = b;
    return c;
  }
};

/// Computes a default from the raw (unresolved) root document, for defaults that
/// depend on other keys: data.source on model.kind, network.nic on bandwidth.
using DefaultFn = std::function<nlohmann::json(const nlohmann::json& root)>;

/// One key of an object.
struct Key {
  enum class Presence { defaulted, required, optional };

  std::string name;
  Value value;
  std::string doc;
  Presence presence = Presence::defaulted;
  nlohmann::json fallback;  // the default when `dynamic` is not set
  DefaultFn dynamic;        // kind-dependent default; `fallback` is its value for `{}`
  std::string default_doc;  // how a dynamic default is chosen, for the docs

  /// The default as written into a resolved document, for the given raw root.
  nlohmann::json default_for(const nlohmann::json& root) const {
    return dynamic ? dynamic(root) : fallback;
  }
};

/// The keys that only one kind of an object accepts.
struct Variant {
  std::string name;
  std::string doc;
  std::vector<Key> keys;
};

/// An object: keys valid for every kind, optionally a discriminator key (`kind`,
/// `source`) whose value selects one variant's extra keys.
struct Object {
  std::vector<Key> keys;             // valid whatever the kind
  std::optional<Key> discriminator;  // a string key whose choices are the variant names
  std::vector<Variant> variants;
  std::shared_ptr<const Value> map_values;  // any key allowed, values of this shape
  std::size_t min_keys = 0;                 // at least this many keys when given
  std::optional<std::size_t> max_keys;

  const Variant* find_variant(const std::string& name) const {
    for (const auto& v : variants) {
      if (v.name == name) return &v;
    }
    return nullptr;
  }
  std::vector<std::string> variant_names() const {
    std::vector<std::string> names;
    for (const auto& v : variants) names.push_back(v.name);
    return names;
  }
};

// Builders, so that the table in spec*.cpp reads like documentation.
inline Value of_type(Type type) {
  Value v;
  v.type = type;
  return v;
}
inline Value any() {
  return of_type(Type::any);
}
inline Value boolean() {
  return of_type(Type::boolean);
}
inline Value integer() {
  return of_type(Type::integer);
}
inline Value number() {
  return of_type(Type::number);
}
inline Value string() {
  return of_type(Type::string);
}
inline Value time() {
  return of_type(Type::time);
}
inline Value rate() {
  return of_type(Type::rate);
}
inline Value size() {
  return of_type(Type::size);
}
inline Value flops() {
  return of_type(Type::flops);
}
inline Value one_of(std::vector<std::string> choices) {
  Value v = of_type(Type::string);
  v.choices = std::move(choices);
  return v;
}
inline Value array_of(Value items) {
  Value v = of_type(Type::array);
  v.items = std::make_shared<const Value>(std::move(items));
  return v;
}
inline Value object(Object contents) {
  Value v = of_type(Type::object);
  v.object = std::make_shared<const Object>(std::move(contents));
  return v;
}

inline Key make_key(std::string name, Value value, std::string doc, Key::Presence presence,
                    nlohmann::json fallback = nullptr) {
  Key k;
  k.name = std::move(name);
  k.value = std::move(value);
  k.doc = std::move(doc);
  k.presence = presence;
  k.fallback = std::move(fallback);
  return k;
}
/// A key with a default (for objects the default `{}` is itself resolved).
inline Key defaulted(std::string name, Value value, nlohmann::json fallback, std::string doc) {
  return make_key(std::move(name), std::move(value), std::move(doc), Key::Presence::defaulted,
                  std::move(fallback));
}
/// A key that must be given.
inline Key required(std::string name, Value value, std::string doc) {
  return make_key(std::move(name), std::move(value), std::move(doc), Key::Presence::required);
}
/// A key that may be absent and then stays absent.
inline Key optional(std::string name, Value value, std::string doc) {
  return make_key(std::move(name), std::move(value), std::move(doc), Key::Presence::optional);
}
/// An object with kinds: `discriminator` chooses among `variants`; `common` keys
/// are accepted by every kind.
inline Object with_kinds(Key discriminator, std::vector<Key> common,
                         std::vector<Variant> variants) {
  Object o;
  std::vector<std::string> names;
  for (const auto& v : variants) names.push_back(v.name);
  discriminator.value = one_of(std::move(names));
  o.discriminator = std::move(discriminator);
  o.keys = std::move(common);
  o.variants = std::move(variants);
  return o;
}
/// An object without kinds.
inline Object plain(std::vector<Key> keys) {
  Object o;
  o.keys = std::move(keys);
  return o;
}
/// Concatenates key lists (keys shared by several variants).
inline std::vector<Key> operator+(std::vector<Key> a, const std::vector<Key>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// The value at root.a.b... when every step exists, else null (for dynamic defaults).
inline nlohmann::json lookup(const nlohmann::json& root, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &root;
  for (const char* step : path) {
    if (!at->is_object() || !at->contains(step)) return nullptr;
    at = &(*at)[step];
  }
  return *at;
}

/// A string key that names a kind, with its default.
inline Key kind_key(std::string name, nlohmann::json fallback, std::string doc) {
  return defaulted(std::move(name), string(), std::move(fallback), std::move(doc));
}

/// The key called `name` in `keys`, or null.
inline const Key* find_key(const std::vector<Key>& keys, std::string_view name) {
  for (const Key& k : keys) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

/// The value of key `name` in `object` when given, else that key's default (its
/// `fallback`; null for an optional key): reads resolved objects and partial ones (tests)
/// alike, so that a default lives only in its key. `name` must be one of `keys`.
inline nlohmann::json value_or_default(const nlohmann::json& object, const std::vector<Key>& keys,
                                       const std::string& name) {
  if (object.is_object() && object.contains(name)) return object[name];
  const Key* key = find_key(keys, name);
  if (!key) throw std::logic_error("no key \"" + name + "\" in the key list");
  return key->fallback;
}

/// Whether `x` (in SI base units) lies within the bounds of `value`.
inline bool within_bounds(const Value& value, double x) {
  const bool low_ok =
      !value.min || (value.min->inclusive ? x >= value.min->value : x > value.min->value);
  const bool high_ok =
      !value.max || (value.max->inclusive ? x <= value.max->value : x < value.max->value);
  return low_ok && high_ok;
}

}  // namespace dlsim::spec
