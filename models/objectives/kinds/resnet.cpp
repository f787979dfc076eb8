// Model `resnet`: a CIFAR-style ResNet (He, Zhang, Ren, Sun, "Deep Residual Learning for
// Image Recognition", CVPR 2016) for 28x28x1 images, depth 6n + 2
// (models/objectives/cnn/architectures.hpp).
#include "models/objectives/kinds/keys.hpp"

namespace dlsim::models {
namespace resnet_model {

using namespace spec;

constexpr const char* kName = "resnet";

std::shared_ptr<const ModelOptions> read(const nlohmann::json& j) {
  auto o = std::make_shared<ConvNetOptions>();
  o->kind = kName;
  kinds::read_conv_net(j, *o);
  const auto depth = j.at("depth").get<std::int64_t>();
  if (depth < 8 || (depth - 2) % 6 != 0)
    throw ModelConfigError(
        "depth", "resnet depth must be 6n + 2 (8, 14, 20, 32, ...), got " + std::to_string(depth));
  o->architecture.kind = cnn::Architecture::Kind::resnet;
  o->architecture.depth = int(depth);
  o->architecture.width = j.at("width").get<double>();
  return o;
}

const ModelRegistration registered{{
    .name = kName,
    .doc = "CIFAR-style ResNet (He et al. 2016) for 28x28x1 images: depth 6n+2, basic blocks of "
           "two 3x3 convolutions, stages of 16/32/64 channels times width, stride-2 downsampling "
           "with 1x1 projection shortcuts, global average pooling, no normalization layers.",
    .keys =
        kinds::cnn_regularizer_keys() +
        std::vector<Key>{
            defaulted("depth", integer().ge(8), 20,
                      "Layers with weights, 6n + 2 (8, 14, 20, 32, ...)."),
            defaulted("width", number().gt(0), 1,
                      "Channel multiplier: stages have round(16w), round(32w), round(64w) "
                      "channels."),
            defaulted(
                "init",
                object(with_kinds(
                    kind_key("kind", "he", "Initial weight distribution (biases start at 0)."), {},
                    {{"he",
                      "N(0, 2/fan_in) (He et al. 2015); second convolution of each "
                      "block scaled by (blocks)^(-1/2).",
                      {}},
                     {"normal",
                      "Weights drawn from N(0, std^2).",
                      {defaulted("std", number().gt(0), 0.01, "Standard deviation.")}}})),
                nlohmann::json::object(),
                "Initial weights (same on every worker; biases start at 0)."),
            kinds::precision_key(),
        },
    .facts = kinds::conv_net_facts(),
    .read = read,
    .order = 5,
}};

}  // namespace resnet_model
}  // namespace dlsim::models
