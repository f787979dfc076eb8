// `profile`: a model with no math, for cluster-scale timing what-ifs (e.g. ResNet-50,
// 25,557,032 parameters, on 1024 GPUs). It states its tensors' sizes (what a message
// carries; several tensors for per-tensor compression), the FLOPs of one sample's
// forward + backward pass, and a fixed time per batch gradient:
//   cost(batch) = batch · flops_per_sample FLOPs + compute_seconds.
#pragma once

#include <numeric>

#include "models/objectives/objective.hpp"

namespace dlsim::models {

class Profile final : public Objective {
 public:
  Profile(std::vector<Index> tensor_sizes, double flops_per_sample, double compute_seconds)
      : tensor_sizes_(std::move(tensor_sizes)),
        parameters_(std::accumulate(tensor_sizes_.begin(), tensor_sizes_.end(), Index(0))),
        flops_per_sample_(flops_per_sample),
        compute_seconds_(compute_seconds) {}

  Index dimension() const override { return 0; }
  Index parameters() const override { return parameters_; }
  std::vector<Index> tensor_sizes() const override { return tensor_sizes_; }
  bool has_math() const override { return false; }
  double loss(const Vector&, const Dataset&) const override { return 0.0; }
  double data_loss(const Vector&, const Dataset&) const override { return 0.0; }
  void gradient(const Vector&, const Dataset&, std::span<const Index>,
                Vector& grad) const override {
    grad.resize(0);
  }
  ComputeCost gradient_cost(Index batch) const override {
    return {double(batch) * flops_per_sample_, compute_seconds_};
  }
  void prox(Vector&, double) const override {}
  std::optional<double> accuracy(const Vector&, const Dataset&) const override {
    return std::nullopt;
  }
  Vector initial_point(std::mt19937_64&) const override { return Vector(); }

 private:
  std::vector<Index> tensor_sizes_;
  Index parameters_;
  double flops_per_sample_;
  double compute_seconds_;
};

static_assert(check_objective<Profile>());

}  // namespace dlsim::models
