// Binary logistic regression (docs/design.md §8), labels y_i ∈ {−1, +1}:
//   f(w) = (1/N) Σ_i log(1 + exp(−y_i z_i)) + (λ2/2)||w_f||² + λ1||w_f||₁,  z_i = a_iᵀw_f + β
//   ∇ on rows B: (1/|B|) A_Bᵀ u + λ2 w_f,  ∂β = (1/|B|) Σ u,  u_i = −y_i σ(−y_i z_i)
// with σ(t) = 1/(1 + e^(−t)); the bias β (last coordinate, only with `bias`) is not
// regularized. Labels other than ±1 are the data preparation's job (models/data/labels).
// Cost of a batch gradient (FLOP convention in objective.hpp), d features, b = |B|:
//   z = A_B w_f: 2bd;  u = −y/(1 + exp(y⊙z)): 5b (product, exp, add, negate, divide);
//   A_Bᵀu: 2bd;  ·(1/b): d;  bias: + β 1·b and ∂β = (Σu)/b: b + 1;  l2 term: 2d (λ2 > 0).
//   Total 4bd + 5b + d [+ 2b + 1 with bias] [+ 2d with l2].
#pragma once

#include "models/objectives/init.hpp"
#include "models/objectives/objective.hpp"

namespace dlsim::models {

class Logistic final : public SummedObjective {
 public:
  Logistic(Index features, Regularization reg, bool bias, InitOptions init);

  Index dimension() const override { return features_ + (bias_ ? 1 : 0); }
  void gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                Vector& grad) const override;
  ComputeCost gradient_cost(Index batch) const override;
  void prox(Vector& w, double step) const override;
  /// Fraction of samples with sign(z_i) = y_i (z_i = 0 counts as −1).
  /// Σ log(1 + exp(−y_i z_i)) and Σ [sign(z_i) = y_i] over rows [begin, end).
  std::optional<LossSums> data_sums(const Vector& w, const Dataset& data, Index begin,
                                    Index end) const override;
  /// (λ2/2)||w_f||² + λ1||w_f||₁.
  double regularizer(const Vector& w) const override;
  Vector initial_point(std::mt19937_64& rng) const override;

 private:
  // z for rows [begin, end)
  Vector margins(const Vector& w, const Dataset& data, Index begin, Index end) const;
  Index features_;
  Regularization reg_;
  bool bias_;
  InitOptions init_;
};

static_assert(check_objective<Logistic>());

}  // namespace dlsim::models
