// `consensus` (docs/design.md §4): no data and no gradient, for pure gossip-averaging
// studies. Worker i starts from its own vector z_i⁰ ~ N(0, I_d) (drawn in worker order
// from the run's seed); the quantity to drive to 0 is
//   train_loss = (1/n) Σ_i ||z_i − x̄⁰||²,   x̄⁰ = (1/n) Σ_i z_i⁰ (the true initial average),
// every node's estimate against the average it should converge to. The gradient is 0, so
// a gradient algorithm (dpsgd) on this model only gossips.
#pragma once

#include <vector>

#include "models/objectives/objective.hpp"

namespace dlsim::models {

class Consensus final : public Objective {
 public:
  /// Draws the `workers` starting vectors of length `dimension` from `rng`.
  Consensus(Index dimension, int workers, std::mt19937_64& rng);

  Index dimension() const override { return dimension_; }
  /// ||w − x̄⁰||² (the loss of one model; `data` is ignored).
  double loss(const Vector& w, const Dataset& data) const override;
  double data_loss(const Vector& w, const Dataset& data) const override { return loss(w, data); }
  /// Sets grad to 0 (of the right length); rows and data are ignored.
  void gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                Vector& grad) const override;
  ComputeCost gradient_cost(Index) const override { return {}; }
  void prox(Vector&, double) const override {}
  std::optional<double> accuracy(const Vector&, const Dataset&) const override {
    return std::nullopt;
  }
  /// x̄⁰, the average of the workers' starting vectors.
  Vector initial_point(std::mt19937_64&) const override { return average_; }
  std::span<const Vector> worker_starts() const override { return starts_; }
  std::optional<double> loss_of_models(std::span<const Vector> models) const override;

 private:
  Index dimension_;
  std::vector<Vector> starts_;
  Vector average_;
};

static_assert(check_objective<Consensus>());

}  // namespace dlsim::models
