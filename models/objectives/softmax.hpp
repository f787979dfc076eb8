// `softmax`: multinomial logistic regression, f(W, b) = mean cross-entropy of
// softmax(A W + 1bᵀ) + regularizers — the DenseClassifier with no hidden layer
// (formulas, layout and FLOP count in dense_classifier.hpp).
#pragma once

#include "models/objectives/dense_classifier.hpp"

namespace dlsim::models {

class Softmax final : public DenseClassifier {
 public:
  Softmax(Index features, int classes, Regularization reg, bool bias, InitOptions init)
      : DenseClassifier(features, {}, classes, Activation::relu, reg, bias, init) {}
};

static_assert(check_objective<Softmax>());

}  // namespace dlsim::models
