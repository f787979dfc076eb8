// The keys of a compressor object (algorithm.compressor, algorithm.downlink_compressor;
// models/compress, docs/algorithms.md §1): the kind and the common keys
// (models/compress/factory.hpp), and one variant per registered compressor with the keys
// it declares (models/compress/registry.hpp). Part of the key table (spec.cpp).
#include "models/compress/factory.hpp"
#include "sim/scenario/compressor_keys.hpp"

namespace dlsim::sim::spec {

using nlohmann::json;

Object compressor_object() {
  // The bits charged are those of the real encoded message. Cross-key checks (clip, bits
  // "auto", ratio xor k) are in each kind's read, called by models::parse_compressor when
  // the scenario is loaded (to_scenario_algorithm.cpp); k <= d also at run start.
  std::string bits;
  std::vector<Variant> variants;
  for (const models::CompressorInfo* info : models::CompressorRegistry::instance().all()) {
    bits += (bits.empty() ? "" : ", ") + info->name + " " + info->bits;
    variants.push_back({info->name, info->doc, info->keys});
  }
  return with_kinds(
      models::compressor_kind_key("How messages are encoded on the wire; bits per message of d "
                                  "coordinates: " +
                                  bits + "."),
      models::compressor_common_keys(), std::move(variants));
}

namespace {

// The object of every compressor_key until the key table fills it in, by address.
const std::shared_ptr<const Object>& placeholder_object() {
  static const std::shared_ptr<const Object> placeholder = std::make_shared<const Object>();
  return placeholder;
}

}  // namespace

Key compressor_key(std::string name, std::string doc) {
  Value value = of_type(Type::object);
  value.object = placeholder_object();
  return optional(std::move(name), std::move(value), std::move(doc));
}

bool is_compressor_key(const Key& key) {
  return key.value.type == Type::object && key.value.object == placeholder_object();
}

}  // namespace dlsim::sim::spec
