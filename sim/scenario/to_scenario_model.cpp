// to_scenario, section `model`: the typed ModelSpec (resnet's depth 6n + 2 and the shapes
// through a cnn layer list are checked here, while reading).
#include "sim/scenario/messages.hpp"
#include "sim/scenario/to_scenario_sections.hpp"

namespace dlsim::sim::scenario_sections {

using nlohmann::json;

namespace {

// model.layers of kind "cnn", shape-checked on 28x28x1 images and 10 classes.
std::vector<models::cnn::LayerSpec> read_layers(const json& layers) {
  std::vector<models::cnn::LayerSpec> out;
  for (const json& j : layers) {
    models::cnn::LayerSpec l;
    l.type = models::cnn::layer_type(j.at("type").get<std::string>());
    const auto get = [&](const char* key, std::int64_t& field) {
      if (j.contains(key)) field = j.at(key).get<std::int64_t>();
    };
    get("channels", l.channels);
    get("kernel", l.kernel);
    get("stride", l.stride);
    get("padding", l.padding);
    get("size", l.size);
    get("units", l.units);
    out.push_back(l);
  }
  try {
    models::cnn::infer_layer_shapes(out, {1, 28, 28}, 10);
  } catch (const models::cnn::LayerListError& e) {
    std::string where = "model.layers";
    if (e.index() >= 0) where = messages::index_path(where, std::size_t(e.index()));
    if (!e.key().empty()) where += "." + e.key();
    throw InputError(where, e.what());
  }
  return out;
}

}  // namespace

void read_model(const json& j, ModelSpec& m) {
  m.kind = j.at("kind").get<std::string>();
  if (m.kind == "profile") {
    m.parameters = j.at("parameters").get<std::int64_t>();
    m.compute_time = parse_time(j.at("compute_time"));
    return;
  }
  if (m.kind == "consensus") {
    m.dimension = j.at("dimension").get<std::int64_t>();
    return;
  }
  m.l2 = j.at("l2").get<double>();
  m.l1 = j.at("l1").get<double>();
  if (m.kind == "lenet5" || m.kind == "resnet" || m.kind == "cnn") {  // always with biases
    m.init.kind = j.at("init").at("kind").get<std::string>();
    if (m.init.kind == "normal") m.init.std = j.at("init").at("std").get<double>();
    m.precision = j.at("precision").get<std::string>();
    if (m.kind == "cnn") {
      m.layers = read_layers(j.at("layers"));
    } else if (m.kind == "lenet5") {
      m.activation = j.at("activation").get<std::string>();
      m.pooling = j.at("pooling").get<std::string>();
    } else {
      m.depth = j.at("depth").get<std::int64_t>();
      m.width = j.at("width").get<double>();
      if (m.depth < 8 || (m.depth - 2) % 6 != 0)
        throw InputError("model.depth", "resnet depth must be 6n + 2 (8, 14, 20, 32, ...), got " +
                                            std::to_string(m.depth));
    }
    return;
  }
  m.bias = j.at("bias").get<bool>();
  m.init.kind = j.at("init").at("kind").get<std::string>();
  if (m.init.kind == "normal") m.init.std = j.at("init").at("std").get<double>();
  if (m.kind == "logistic")
    m.positive_classes = j.at("positive_classes").get<std::vector<double>>();
  if (m.kind == "mlp") {
    m.hidden = j.at("hidden").get<std::vector<std::int64_t>>();
    m.activation = j.at("activation").get<std::string>();
  }
}

}  // namespace dlsim::sim::scenario_sections
