// Model `cnn`: a convolutional network from a list of layers
// (models/objectives/cnn/layer_list.hpp), for images of the shape the data states (else
// 28x28x1), shape-checked against it when the scenario is read
// (ConvNetOptions::check_data, kinds/conv_net.cpp).
#include "models/objectives/cnn/layer_list.hpp"
#include "models/objectives/kinds/keys.hpp"

namespace dlsim::models {
namespace cnn_model {

using nlohmann::json;
using namespace spec;

constexpr const char* kName = "cnn";

// `layers` (their shapes are checked with the data's image shape, in check_data).
std::vector<cnn::LayerSpec> read_layers(const json& layers) {
  std::vector<cnn::LayerSpec> out;
  for (const json& j : layers) {
    cnn::LayerSpec l;
    l.type = cnn::layer_type(j.at("type").get<std::string>());
    const auto get = [&](const char* key, std::int64_t& field) {
      if (j.contains(key)) field = j.at(key).get<std::int64_t>();
    };
    get("channels", l.channels);
    get("kernel", l.kernel);
    get("stride", l.stride);
    get("padding", l.padding);
    get("size", l.size);
    get("units", l.units);
    get("groups", l.groups);
    out.push_back(l);
  }
  return out;
}

std::shared_ptr<const ModelOptions> read(const json& j) {
  auto o = std::make_shared<ConvNetOptions>();
  o->kind = kName;
  kinds::read_conv_net(j, *o);
  o->architecture.kind = cnn::Architecture::Kind::custom;
  o->architecture.layers = read_layers(j.at("layers"));
  return o;
}

std::vector<Key> keys() {
  // One object per layer, `type` chooses the layer (layer_list.hpp). `type` is required;
  // its fallback "" names no variant, so a missing type is reported as a missing key.
  const Object layer = with_kinds(
      make_key("type", string(), "The layer.", Key::Presence::required, ""), {},
      {{"conv",
        "2-D convolution (cross-correlation) with biases: output size (n + 2 padding - kernel) / "
        "stride + 1, rounded down.",
        {
            required("channels", integer().ge(1).le(4096), "Output channels."),
            required("kernel", integer().ge(1), "Kernel height and width."),
            defaulted("stride", integer().ge(1), 1, "Step between windows."),
            defaulted("padding", integer().ge(0), 0,
                      "Zeros added on every side (less than the kernel)."),
        }},
       {"relu", "max(z, 0) elementwise.", {}},
       {"tanh", "tanh(z) elementwise.", {}},
       {"maxpool",
        "Maximum over 2x2 windows, stride 2 (height and width must be even).",
        {defaulted("size", integer().ge(1), 2, "Window size and stride; only 2 is supported.")}},
       {"avgpool",
        "Mean over 2x2 windows, stride 2 (height and width must be even).",
        {defaulted("size", integer().ge(1), 2, "Window size and stride; only 2 is supported.")}},
       {"dense",
        "Fully connected with biases (flattens its input).",
        {required("units", integer().ge(1).le(1 << 20), "Outputs.")}},
       {"global_avg_pool", "Mean of every channel over its height and width.", {}},
       {"group_norm",
        "Group normalization (Wu and He 2018): per sample, the channels in `groups` groups, each "
        "normalized over its channels x height x width (eps 1e-5), then a learned per-channel "
        "scale (1 at start) and shift (0 at start), not regularized.",
        {required("groups", integer().ge(1), "Groups; must divide the input's channels.")}}});
  const Object init =
      with_kinds(kind_key("kind", "he",
                          "Initial weight distribution (biases start at 0, except under torch)."),
                 {},
                 {{"he", "N(0, 2/fan_in) (He et al. 2015), for relu.", {}},
                  {"xavier", "N(0, 2/(fan_in + fan_out)) (Glorot and Bengio 2010), for tanh.", {}},
                  kinds::torch_init_kind(),
                  {"normal",
                   "Weights drawn from N(0, std^2).",
                   {defaulted("std", number().gt(0), 0.01, "Standard deviation.")}}});
  return kinds::cnn_regularizer_keys() +
         std::vector<Key>{
             required("layers", array_of(object(layer)).nonempty(), "The layers, input to output."),
             defaulted(
                 "init", object(init), json::object(),
                 "Initial weights (same on every worker; biases start at 0, except under torch)."),
             kinds::precision_key(),
         };
}

const ModelRegistration registered{{
    .name = kName,
    .doc = "Convolutional network from a list of layers (conv, relu, tanh, maxpool, avgpool, "
           "dense, global_avg_pool, group_norm) for images of the shape the data states "
           "(fashion-mnist "
           "1x28x28, cifar10 3x32x32, data.image_shape; else 784 features as 1x28x28), "
           "shape-checked against it; the last layer must give 10 outputs, one per class "
           "(models/objectives/cnn/layer_list.hpp).",
    .keys = keys(),
    .facts = kinds::conv_net_facts(),
    .read = read,
    .order = 6,
}};

}  // namespace cnn_model
}  // namespace dlsim::models
