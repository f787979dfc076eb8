// read_key (registry.hpp): a kind's option, or its key's default, checked against the key.
#include "models/compress/registry.hpp"

#include <algorithm>
#include <cmath>

namespace dlsim::models {

namespace {

using nlohmann::json;

bool is_integral(const json& raw) {
  if (raw.is_number_integer()) return true;
  if (!raw.is_number_float()) return false;
  const double x = raw.get<double>();
  return std::isfinite(x) && x == std::floor(x);
}

std::string number_text(double x) {
  return json(x).dump();
}

std::string bounds_text(const spec::Value& v) {
  if (v.min && v.max) {
    return "in " + std::string(v.min->inclusive ? "[" : "(") + number_text(v.min->value) + ", " +
           number_text(v.max->value) + (v.max->inclusive ? "]" : ")");
  }
  if (v.min) return std::string(v.min->inclusive ? ">= " : "> ") + number_text(v.min->value);
  return std::string(v.max->inclusive ? "<= " : "< ") + number_text(v.max->value);
}

}  // namespace

json read_key(const json& object, const std::vector<spec::Key>& keys, const std::string& name) {
  const json value = spec::value_or_default(object, keys, name);
  const spec::Value& shape = spec::find_key(keys, name)->value;
  if (value.is_null()) return value;  // an absent optional key
  const auto wrong = [&](const std::string& expected) {
    throw CompressorConfigError(name, "must be " + expected + "; got " + value.dump());
  };
  switch (shape.type) {
    case spec::Type::boolean:
      if (!value.is_boolean()) wrong("a boolean");
      break;
    case spec::Type::integer:
      if (!is_integral(value)) wrong("an integer");
      if (!spec::within_bounds(shape, value.get<double>())) wrong(bounds_text(shape));
      break;
    case spec::Type::number:
      if (!value.is_number() || !std::isfinite(value.get<double>())) wrong("a finite number");
      if (!spec::within_bounds(shape, value.get<double>())) wrong(bounds_text(shape));
      break;
    case spec::Type::string:
      if (!value.is_string()) wrong("a string");
      if (!shape.choices.empty() && std::find(shape.choices.begin(), shape.choices.end(),
                                              value.get<std::string>()) == shape.choices.end()) {
        std::string choices;
        for (const auto& c : shape.choices) choices += (choices.empty() ? "" : ", ") + c;
        wrong("one of " + choices);
      }
      break;
    default:  // any: the kind's read checks it
      break;
  }
  return value;
}

}  // namespace dlsim::models
