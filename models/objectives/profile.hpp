// `profile`: a model with no math, for cluster-scale timing what-ifs (e.g. ResNet-50,
// 25,557,032 parameters, on 1024 GPUs). It states its parameter count (what a message
// carries) and the time one batch gradient takes.
#pragma once

#include "models/objectives/objective.hpp"

namespace dlsim::models {

class Profile final : public Objective {
 public:
  Profile(Index parameters, double compute_seconds)
      : parameters_(parameters), compute_seconds_(compute_seconds) {}

  Index dimension() const override { return 0; }
  Index parameters() const override { return parameters_; }
  bool has_math() const override { return false; }
  double loss(const Vector&, const Dataset&) const override { return 0.0; }
  double data_loss(const Vector&, const Dataset&) const override { return 0.0; }
  void gradient(const Vector&, const Dataset&, std::span<const Index>,
                Vector& grad) const override {
    grad.resize(0);
  }
  ComputeCost gradient_cost(Index) const override { return {0.0, compute_seconds_}; }
  void prox(Vector&, double) const override {}
  std::optional<double> accuracy(const Vector&, const Dataset&) const override {
    return std::nullopt;
  }
  Vector initial_point(std::mt19937_64&) const override { return Vector(); }

 private:
  Index parameters_;
  double compute_seconds_;
};

static_assert(check_objective<Profile>());

}  // namespace dlsim::models
