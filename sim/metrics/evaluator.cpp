#include "sim/metrics/evaluator.hpp"

namespace dlsim::sim {

Evaluation Evaluator::evaluate(const std::vector<models::Vector>& models) const {
  Evaluation e;
  e.consensus_distance = 0.0;  // centralized runs: one model, distance 0
  if (!objective_.has_math() || models.empty()) return e;

  models::Vector mean = models.front();
  for (std::size_t i = 1; i < models.size(); ++i) mean += models[i];
  mean /= double(models.size());

  if (decentralized_) {
    double sum = 0;
    for (const auto& x : models) sum += (x - mean).squaredNorm();
    e.consensus_distance = sum / double(models.size());
  }
  if (const auto loss = objective_.loss_of_models(models))
    e.train_loss = *loss;
  else if (train_)
    e.train_loss = objective_.loss(mean, *train_);
  if (test_) {
    e.test_loss = objective_.data_loss(mean, *test_);
    e.test_accuracy = objective_.accuracy(mean, *test_);
  }
  return e;
}

}  // namespace dlsim::sim
