// Fully connected classifiers with a softmax output and mean cross-entropy loss
// (docs/design.md §8): `softmax` (multinomial logistic regression, no hidden layer) and
// `mlp` (hidden layers with relu or tanh). Labels are class indices 0..C−1.
//
//   H_0 = X (batch rows),  Z_l = H_{l−1} W_l + 1 b_lᵀ,  H_l = act(Z_l) (hidden layers),
//   P = softmax(Z_L) row-wise,  f = −(1/N) Σ_i log P_{i,y_i} + (λ2/2) Σ_l ||W_l||² + λ1 Σ_l
//   ||W_l||₁ backward: G_L = (P − Y)/|B|,  ∇W_l = H_{l−1}ᵀ G_l + λ2 W_l,  ∇b_l = G_lᵀ1,
//             G_{l−1} = (G_l W_lᵀ) ⊙ act'(H_{l−1})   (relu' = [H > 0], tanh' = 1 − H²)
// Biases are not regularized. Every step is a matrix product over the whole batch.
//
// Parameters are one contiguous vector (what compressors and the network see): layer by
// layer, W_l (fan_in × fan_out, column-major) then b_l; per-layer Eigen::Map views give
// the matrices without copies, and tensor_sizes() lists the slices.
//
// Cost of a batch gradient, b rows (FLOP convention in objective.hpp), per layer
// l: n → m:  forward 2bnm (GEMM) + bm (bias) + bm (activation, hidden layers only);
// output: 5bC (row max, subtract, exp, row sum, divide) + b + bC (P − Y, ·1/b);
// backward: 2bnm (∇W) + bm (∇b) and, below the top layer, 2bnm (G W_lᵀ) plus the
// activation derivative on the n inputs, 2bn (relu: compare, multiply) or 3bn (tanh:
// square, subtract, multiply); l2: 2nm per layer when λ2 > 0. Bias terms only with `bias`.
#pragma once

#include <cstdint>
#include <vector>

#include "models/objectives/init.hpp"
#include "models/objectives/objective.hpp"
#include "models/objectives/weight_penalty.hpp"

namespace dlsim::models {

namespace dense_product {
class RowSource;
}

enum class Activation { relu, tanh };

class DenseClassifier : public SummedObjective {
 public:
  /// `hidden` lists the hidden layer widths (empty: softmax regression).
  DenseClassifier(Index features, std::vector<Index> hidden, int classes, Activation activation,
                  Regularization reg, bool bias, InitOptions init);

  Index dimension() const override { return dimension_; }
  std::vector<Index> tensor_sizes() const override;
  void gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                Vector& grad) const override;
  ComputeCost gradient_cost(Index batch) const override;
  void prox(Vector& w, double step) const override;
  /// Fraction of samples whose largest logit is their label.
  /// Σ_i −log P_{i,y_i} and Σ_i [argmax = y_i] over rows [begin, end), in blocks of rows.
  std::optional<LossSums> data_sums(const Vector& w, const Dataset& data, Index begin,
                                    Index end) const override;
  /// (λ2/2) Σ_l ||W_l||² + λ1 Σ_l ||W_l||₁.
  double regularizer(const Vector& w) const override;
  Vector initial_point(std::mt19937_64& rng) const override;

  int classes() const { return classes_; }

  /// The parameter count of these layers (saturating at INT64_MAX, counts.hpp), without
  /// building anything: for load-time checks and the memory estimate.
  static std::int64_t parameter_count(std::int64_t features, const std::vector<Index>& hidden,
                                      std::int64_t classes, bool bias);
  /// Bytes of the per-thread scratch after batch gradients of `batch` rows and
  /// evaluation blocks: the gathered batch, and every layer's output and gradient for
  /// the larger of the batch and an evaluation block (the memory estimate).
  static double thread_bytes(std::int64_t features, const std::vector<Index>& hidden,
                             std::int64_t classes, std::int64_t batch);
  /// Rows of byte-coded features an evaluation widens at once: four inside the AVX-512
  /// product (dense_product::RowSource), else its whole block.
  static Index coded_rows_widened();

 private:
  struct Layer {
    Index in = 0, out = 0;
    Index weights = 0;  // offset of W in the parameter vector
    Index bias = 0;     // offset of b (== weights + in·out)
    bool hidden = true;
  };
  // Forward pass over `x`; fills scratch activations, returns the logits.
  const Matrix& forward(const Vector& w, const Eigen::Ref<const Matrix>& x) const;
  // The same over rows made on demand (byte-coded data, widened inside the first product).
  const Matrix& forward(const Vector& w, const dense_product::RowSource& x) const;
  // The rest of a forward pass once the first activation holds input · W_0.
  const Matrix& forward_from_first_product(const Vector& w) const;
  void check(const Vector& w, const Dataset& data) const;

  Index features_;
  int classes_;
  Activation activation_;
  Regularization reg_;
  bool bias_;
  InitOptions init_;
  std::vector<Layer> layers_;
  Index dimension_ = 0;
  WeightPenalty penalty_;  // on every W_l
};

}  // namespace dlsim::models
