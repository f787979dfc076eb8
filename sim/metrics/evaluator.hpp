// What a metrics point measures (DESIGN.md §5): the full objective of the averaged
// model x̄ = (1/n) Σ_i x_i on the training set (or on the fixed `metrics.eval_samples`
// subsample of it), its data loss and accuracy on the test set, and the consensus
// distance (1/n) Σ_i ||x_i − x̄||² of decentralized runs. Objectives whose loss depends
// on every model (`consensus`: (1/n) Σ_i ||x_i − x̄⁰||²) report it through
// Objective::loss_of_models, which then is train_loss.
#pragma once

#include <optional>
#include <vector>

#include "models/objectives/objective.hpp"

namespace dlsim::sim {

struct Evaluation {
  std::optional<double> train_loss;
  std::optional<double> test_loss;
  std::optional<double> test_accuracy;
  std::optional<double> consensus_distance;
};

class Evaluator {
 public:
  /// `train` is the set train_loss is measured on (DataSplit::loss_set(): the training
  /// set or its eval_samples subsample); `train` and `test` may be null (no data / no
  /// test set).
  Evaluator(const models::Objective& objective, const models::Dataset* train,
            const models::Dataset* test, bool decentralized)
      : objective_(objective), train_(train), test_(test), decentralized_(decentralized) {}

  Evaluation evaluate(const std::vector<models::Vector>& models) const;

 private:
  const models::Objective& objective_;
  const models::Dataset* train_;
  const models::Dataset* test_;
  bool decentralized_;
};

}  // namespace dlsim::sim
