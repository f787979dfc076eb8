// Keys and readers that several model kinds share (keys.hpp).
#include "models/objectives/kinds/keys.hpp"

namespace dlsim::models::kinds {

using nlohmann::json;
using namespace spec;

std::vector<Key> regularizer_keys() {
  return {
      defaulted("l2", number().ge(0), 0, "L2 regularization strength (biases excluded)."),
      defaulted("l1", number().ge(0), 0,
                "L1 regularization strength (proximal step: soft-thresholding)."),
      defaulted("bias", boolean(), true, "Add unregularized bias weights."),
  };
}

std::vector<Key> cnn_regularizer_keys() {
  std::vector<Key> keys = regularizer_keys();
  keys.pop_back();
  return keys;
}

Key linear_init_key() {
  const Object linear_init =
      with_kinds(kind_key("kind", "zeros", "Initial model distribution."), {},
                 {{"zeros", "Every weight 0.", {}},
                  {"normal",
                   "Weights drawn from N(0, std^2) with the run's seed.",
                   {defaulted("std", number().gt(0), 0.01, "Standard deviation.")}}});
  return defaulted("init", object(linear_init), json::object(),
                   "Initial model (same on every worker).");
}

spec::Variant torch_init_kind() {
  return {"torch",
          "PyTorch's default for Linear and Conv2d layers: weights and biases both "
          "U(-1/sqrt(fan_in), 1/sqrt(fan_in)), so a run starts as PyTorch code does.",
          {}};
}

Object mlp_init_object() {
  Key kind = kind_key("kind", "he",
                      "Initial weight distribution (biases start at 0, except under torch).");
  kind.dynamic = [](const json& root) {
    return json(lookup(root, {"model", "activation"}) == "tanh" ? "xavier" : "he");
  };
  kind.default_doc = "xavier when model.activation is tanh, else he";
  return with_kinds(
      kind, {},
      {{"he", "N(0, 2/fan_in) (He et al. 2015), for relu.", {}},
       {"xavier", "N(0, 2/(fan_in + fan_out)) (Glorot and Bengio 2010), for tanh.", {}},
       torch_init_kind(),
       {"normal",
        "Weights drawn from N(0, std^2).",
        {defaulted("std", number().gt(0), 0.01, "Standard deviation.")}}});
}

Key precision_key() {
  return defaulted("precision", one_of({"float", "double"}), "float",
                   "Arithmetic of forward and backward passes: float (twice as fast) or double; "
                   "the parameter vector is double either way.");
}

InitOptions read_init(const json& j) {
  InitOptions init;
  using Kind = InitOptions::Kind;
  const std::string kind = j.at("kind").get<std::string>();
  init.kind = kind == "normal"   ? Kind::normal
              : kind == "he"     ? Kind::he
              : kind == "xavier" ? Kind::xavier
              : kind == "torch"  ? Kind::torch
                                 : Kind::zeros;
  if (init.kind == Kind::normal) init.std = j.at("std").get<double>();
  return init;
}

Activation read_activation(const json& j) {
  return j.get<std::string>() == "tanh" ? Activation::tanh : Activation::relu;
}

void read_linear(const json& j, LinearOptions& o) {
  o.reg = {j.at("l2").get<double>(), j.at("l1").get<double>()};
  o.bias = j.at("bias").get<bool>();
  o.init = read_init(j.at("init"));
}

void read_conv_net(const json& j, ConvNetOptions& o) {
  o.reg = {j.at("l2").get<double>(), j.at("l1").get<double>()};
  o.init = read_init(j.at("init"));
  o.precision =
      j.at("precision").get<std::string>() == "double" ? Precision::double_ : Precision::single;
}

}  // namespace dlsim::models::kinds
