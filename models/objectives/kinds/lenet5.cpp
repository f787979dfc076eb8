// Model `lenet5`: LeNet-5 (LeCun et al. 1998) for the data's images, 28x28x1 by default
// (models/objectives/cnn/architectures.hpp).
#include "models/objectives/kinds/keys.hpp"

namespace dlsim::models {
namespace lenet5_model {

using namespace spec;

constexpr const char* kName = "lenet5";

std::shared_ptr<const ModelOptions> read(const nlohmann::json& j) {
  auto o = std::make_shared<ConvNetOptions>();
  o->kind = kName;
  kinds::read_conv_net(j, *o);
  o->architecture.kind = cnn::Architecture::Kind::lenet5;
  o->architecture.activation = kinds::read_activation(j.at("activation"));
  o->architecture.pooling =
      j.at("pooling").get<std::string>() == "average" ? cnn::PoolKind::average : cnn::PoolKind::max;
  return o;
}

const ModelRegistration registered{{
    .name = kName,
    .doc = "LeNet-5 for the data's images (1x28x28 by default; any shape the data states, "
           "e.g. cifar10 3x32x32): conv 6@5x5 pad 2, pool, conv 16@5x5, pool, dense 120, 84, "
           "classes; 61,706 parameters for 10 classes on 1x28x28 (models/objectives/cnn).",
    .keys =
        kinds::cnn_regularizer_keys() +
        std::vector<Key>{
            defaulted("activation", one_of({"relu", "tanh"}), "relu",
                      "Activation after every convolution and hidden dense layer."),
            defaulted("pooling", one_of({"max", "average"}), "max", "2x2 pooling, stride 2."),
            defaulted(
                "init", object(kinds::mlp_init_object()), nlohmann::json::object(),
                "Initial weights (same on every worker; biases start at 0, except under torch)."),
            kinds::precision_key(),
        },
    .facts = kinds::conv_net_facts(),
    .read = read,
    .order = 4,
}};

}  // namespace lenet5_model
}  // namespace dlsim::models
