// to_scenario, section `model`: the registered kind reads its own options
// (models/objectives/registry.hpp), e.g. resnet's depth 6n + 2 and the shapes through a
// cnn layer list are checked while reading.
#include "models/objectives/registry.hpp"
#include "sim/scenario/to_scenario_sections.hpp"

namespace dlsim::sim::scenario_sections {

using nlohmann::json;

json in_base_units(const json& object, const std::vector<dlsim::spec::Key>& keys) {
  json out = object;
  for (const dlsim::spec::Key& key : keys) {
    if (!out.is_object() || !out.contains(key.name)) continue;
    json& value = out[key.name];
    switch (key.value.type) {
      case dlsim::spec::Type::time:
        value = parse_time(value).seconds();  // rounded to the picosecond first
        break;
      case dlsim::spec::Type::rate:
        value = parse_rate(value);
        break;
      case dlsim::spec::Type::size:
        value = double(to_bits(value));
        break;
      case dlsim::spec::Type::flops:
        value = parse_flops(value);
        break;
      default:
        break;
    }
  }
  return out;
}

void read_model(const json& j, ModelSpec& m) {
  m.kind = j.at("kind").get<std::string>();
  const models::ModelInfo& info = models::model_info(m.kind);
  try {
    m.options = info.read(in_base_units(j, info.keys));
  } catch (const models::ModelConfigError& e) {
    throw InputError(e.key().empty() ? "model" : "model." + e.key(), e.what());
  }
}

}  // namespace dlsim::sim::scenario_sections
