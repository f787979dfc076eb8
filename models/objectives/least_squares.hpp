// Least squares (docs/design.md §8):
//   f(w) = (1/2N) Σ_i (a_iᵀw − b_i)² + (λ2/2)||w||² + λ1||w||₁
// With `bias`, the last coordinate of w multiplies a constant feature 1 and is not
// regularized. Gradient on a batch B: (1/|B|) A_Bᵀ(A_B w − b_B) + λ2 w.
// Cost: 4·|B|·d + 2d FLOPs (two matrix-vector products, the residual and the l2 term).
#pragma once

#include "models/objectives/init.hpp"
#include "models/objectives/objective.hpp"

namespace dlsim::models {

class LeastSquares final : public Objective {
 public:
  LeastSquares(Index features, Regularization reg, bool bias, InitOptions init);

  Index dimension() const override;
  double loss(const Vector& w, const Dataset& data) const override;
  double data_loss(const Vector& w, const Dataset& data) const override;
  void gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                Vector& grad) const override;
  ComputeCost gradient_cost(Index batch) const override;
  void prox(Vector& w, double step) const override;
  std::optional<double> accuracy(const Vector&, const Dataset&) const override {
    return std::nullopt;
  }
  /// Σ (a_iᵀw_f + β − b_i)²/2 over rows [begin, end); no correct count.
  std::optional<LossSums> data_sums(const Vector& w, const Dataset& data, Index begin,
                                    Index end) const override;
  /// (λ2/2)||w_f||² + λ1||w_f||₁.
  double regularizer(const Vector& w) const override;
  Vector initial_point(std::mt19937_64& rng) const override;

 private:
  Index features_;
  Regularization reg_;
  bool bias_;
  InitOptions init_;
};

static_assert(check_objective<LeastSquares>());

}  // namespace dlsim::models
