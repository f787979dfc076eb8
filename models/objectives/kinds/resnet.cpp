// Model `resnet`: a CIFAR-style ResNet (He, Zhang, Ren, Sun, "Deep Residual Learning for
// Image Recognition", CVPR 2016, §4.2) for the data's images (28x28x1 by default), depth
// 6n + 2, with projection (option B) or zero-padding (option A) shortcuts and optional
// group normalization (Wu and He 2018) (models/objectives/cnn/architectures.hpp).
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
  o->architecture.shortcut = j.at("shortcut").get<std::string>() == "zero_pad"
                                 ? cnn::Shortcut::zero_pad
                                 : cnn::Shortcut::projection;
  if (j.at("norm").get<std::string>() == "group") {
    const auto groups = j.at("groups").get<std::int64_t>();
    for (int stage = 0; stage < 3; ++stage) {
      const Index channels = cnn::resnet_channels(o->architecture.width, stage);
      if (channels % groups != 0)
        throw ModelConfigError("groups", std::to_string(groups) + " groups do not divide the " +
                                             std::to_string(channels) + " channels of stage " +
                                             std::to_string(stage + 1) +
                                             " (every stage's channel count must be a multiple)");
    }
    o->architecture.groups = groups;
  }
  return o;
}

const ModelRegistration registered{{
    .name = kName,
    .doc = "CIFAR-style ResNet (He et al. 2016, section 4.2) for the data's images (1x28x28 by "
           "default; cifar10 3x32x32): a 3x3 convolution, then 3 stages of n basic blocks (two "
           "3x3 convolutions) of 16/32/64 channels times width, the second and third starting "
           "with stride 2, global average pooling, a dense layer; depth 6n+2 layers with "
           "weights. Downsampling shortcuts: 1x1 projection (option B) or parameter-free zero "
           "padding (option A, the paper's choice for CIFAR). No normalization, or group "
           "normalization after every convolution (before its ReLU). ResNet-20 as in the paper: "
           "depth 20, shortcut zero_pad; 269,034 parameters on 3x32x32 for 10 classes (with "
           "convolution biases, no normalization).",
    .keys =
        kinds::cnn_regularizer_keys() +
        std::vector<Key>{
            defaulted("depth", integer().ge(8), 20,
                      "Layers with weights, 6n + 2 (8, 14, 20, 32, ...)."),
            defaulted("width", number().gt(0), 1,
                      "Channel multiplier: stages have round(16w), round(32w), round(64w) "
                      "channels."),
            defaulted("shortcut", one_of({"projection", "zero_pad"}), "projection",
                      "Shortcut of the two blocks that change the shape: projection (a 1x1 "
                      "convolution with stride 2, option B) or zero_pad (the input subsampled "
                      "with stride 2 and its channels padded with zeros, parameter-free, "
                      "option A: the paper's CIFAR networks)."),
            defaulted("norm", one_of({"none", "group"}), "none",
                      "Normalization after every convolution, before its ReLU: none, or group "
                      "normalization (Wu and He 2018: per sample, channels in `groups` groups "
                      "normalized over channels x height x width, eps 1e-5, then a learned "
                      "per-channel scale (1 at start) and shift (0 at start), not regularized)."),
            defaulted("groups", integer().ge(1), 8,
                      "Groups of group normalization (norm group); must divide every stage's "
                      "channels."),
            defaulted(
                "init",
                object(with_kinds(
                    kind_key(
                        "kind", "he",
                        "Initial weight distribution (biases start at 0, except under torch)."),
                    {},
                    {{"he",
                      "N(0, 2/fan_in) (He et al. 2015); second convolution of each "
                      "block scaled by (blocks)^(-1/2).",
                      {}},
                     kinds::torch_init_kind(),
                     {"normal",
                      "Weights drawn from N(0, std^2).",
                      {defaulted("std", number().gt(0), 0.01, "Standard deviation.")}}})),
                nlohmann::json::object(),
                "Initial weights (same on every worker; biases start at 0, except under torch)."),
            kinds::precision_key(),
        },
    .facts = kinds::conv_net_facts(),
    .read = read,
    .order = 5,
}};

}  // namespace resnet_model
}  // namespace dlsim::models
