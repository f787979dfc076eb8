// Keys and readers that several model kinds share (models/objectives/kinds/*.cpp), each
// defined once so that the key reference documents it once.
#pragma once

#include <nlohmann/json.hpp>

#include "models/objectives/kinds/options.hpp"
#include "models/objectives/registry.hpp"
#include "spec/key_table.hpp"

namespace dlsim::models::kinds {

/// l2, l1 and bias.
std::vector<spec::Key> regularizer_keys();
/// l2 and l1 (convolutional networks always have biases).
std::vector<spec::Key> cnn_regularizer_keys();
/// The linear models' `init` (zeros | normal).
spec::Key linear_init_key();
/// The `init` object of mlp and lenet5 (he | xavier | torch | normal; xavier by default
/// for tanh).
spec::Object mlp_init_object();
/// The `torch` kind of every network's `init`: PyTorch's default initialization.
spec::Variant torch_init_kind();
/// The convolutional networks' `precision`.
spec::Key precision_key();

/// l2, l1, bias and init of a linear model or mlp.
void read_linear(const nlohmann::json& model, LinearOptions& o);
InitOptions read_init(const nlohmann::json& init);
Activation read_activation(const nlohmann::json& activation);
/// l2, l1, init and precision of a convolutional network.
void read_conv_net(const nlohmann::json& model, ConvNetOptions& o);
/// The facts of the convolutional networks (models/objectives/cnn): class labels, images of
/// the shape the data states, else 28x28x1.
inline ModelFacts conv_net_facts() {
  return {.labels = LabelNeeds::class_indices,
          .input_features = 784,
          .input_text = "28x28 images",
          .image_input = true};
}

}  // namespace dlsim::models::kinds
