// Group normalization (Wu and He, "Group Normalization", ECCV 2018): per sample, the C
// channels are split into G groups of C/G consecutive channels, and each group's
// S = (C/G)·H·W values are normalized by their own mean and variance, then every channel
// gets a learned scale and shift:
//   μ = (1/S) Σ x,  σ² = (1/S) Σ (x − μ)²,  x̂ = (x − μ)/√(σ² + ε),  y = γ_c x̂ + β_c.
// Backward (per sample and group, with g = ∂L/∂y and d = g·γ_c):
//   ∂L/∂β_c = Σ_{b,y,x} g,  ∂L/∂γ_c = Σ_{b,y,x} g x̂,
//   ∂L/∂x = (1/√(σ² + ε)) (d − mean_S(d) − x̂ · mean_S(d x̂)).
// Unlike batch normalization it does not depend on the other samples of the batch, so a
// gradient on B samples is the mean of B per-sample gradients as for every layer here.
// Parameters: γ (C, 1 at init), then β (C, 0 at init); neither is regularized.
// FLOPs (layer.hpp's convention), N = B·C·H·W values, B·G groups of S values each:
//   forward per group: Σx (S − 1) and /S (1), x − μ (S), Σ(x − μ)² (2S − 1) and /S (1),
//   + ε, √, 1/· (3), ·1/σ (S), γx̂ + β (2S): 7S + 3, so 7N + 3BG;
//   backward ∂β: C(BHW − 1), ∂γ: C(2BHW − 1); with the input gradient d (N), per group
//   mean(d) (S), mean(d x̂) (2S), (d − m₁ − x̂ m₂)·1/σ (4S): 8N more.
#pragma once

#include "models/objectives/cnn/layer.hpp"

namespace dlsim::models::cnn {

template <class T>
class GroupNorm final : public Layer<T> {
 public:
  /// Throws std::invalid_argument unless `groups` ≥ 1 divides the channels.
  GroupNorm(Shape input, Index groups, double epsilon = 1e-5);

  std::string name() const override { return "group_norm"; }
  Shape input_shape() const override { return input_; }
  Shape output_shape() const override { return input_; }
  std::vector<TensorInfo> tensors() const override;
  void forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
               Workspace<T>& ws) const override;
  void backward(const T* params, const Tensor<T>& in, const Tensor<T>& out,
                const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                Workspace<T>& ws) const override;
  double forward_flops(Index batch) const override;
  double backward_flops(Index batch, bool input_gradient) const override;

  Index groups() const { return groups_; }

 private:
  Shape input_;
  Index groups_;
  double epsilon_;
};

extern template class GroupNorm<float>;
extern template class GroupNorm<double>;

}  // namespace dlsim::models::cnn
