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
#include "sim/engine/job_pool.hpp"
#include "sim/metrics/observer.hpp"

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

  /// The train loss, test loss and test accuracy are independent passes over the data:
  /// with a pool of several threads they run at once (each pass computed exactly as
  /// without one, so the results do not depend on the pool).
  void set_pool(JobPool* pool) { pool_ = pool; }

  Evaluation evaluate(const std::vector<models::Vector>& models) const;
  /// Each model on its own (metrics.per_worker): train_loss of x_i (the objective's
  /// loss_of_models of x_i alone when it has one, e.g. consensus: ||x_i − x̄⁰||²), test
  /// loss and accuracy of x_i, and ||x_i − x̄||².
  std::vector<WorkerMetrics> evaluate_each(const std::vector<models::Vector>& models) const;

 private:
  const models::Objective& objective_;
  const models::Dataset* train_;
  const models::Dataset* test_;
  bool decentralized_;
  JobPool* pool_ = nullptr;
};

}  // namespace dlsim::sim
