// `mlp`: a multilayer perceptron with relu or tanh hidden layers and a softmax output,
// trained on mean cross-entropy — the DenseClassifier with hidden layers (formulas,
// parameter layout and FLOP count in dense_classifier.hpp). Default initialisation is
// He for relu and Xavier for tanh (init.hpp).
#pragma once

#include "models/objectives/dense_classifier.hpp"

namespace dlsim::models {

class Mlp final : public DenseClassifier {
 public:
  Mlp(Index features, std::vector<Index> hidden, int classes, Activation activation,
      Regularization reg, bool bias, InitOptions init)
      : DenseClassifier(features, std::move(hidden), classes, activation, reg, bias, init) {}
};

static_assert(check_objective<Mlp>());

}  // namespace dlsim::models
