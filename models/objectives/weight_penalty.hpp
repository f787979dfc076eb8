// The elastic-net penalty on a model's weight tensors (biases are not regularized),
// shared by the classifiers whose parameter vectors interleave weights and biases
// (DenseClassifier, ConvNet). With w_s the weight segments of the parameter vector:
//   r(w) = Σ_s (λ2/2)||w_s||² + λ1||w_s||₁
//   ∇ of the smooth part: λ2 w_s on each segment (λ1 goes to the proximal step)
//   prox of step·λ1||·||₁: soft-thresholding of each segment by step·λ1.
#pragma once

#include <vector>

#include "models/objectives/batch.hpp"
#include "models/objectives/objective.hpp"

namespace dlsim::models {

/// A weight tensor's slice of the parameter vector.
struct WeightSegment {
  Index offset = 0;
  Index size = 0;
};

class WeightPenalty {
 public:
  WeightPenalty() = default;
  WeightPenalty(Regularization reg, std::vector<WeightSegment> segments)
      : reg_(reg), segments_(std::move(segments)) {}

  /// r(w), summed segment by segment (λ2 term, then λ1 term).
  double value(const Vector& w) const {
    double value = 0;
    for (const WeightSegment& s : segments_) {
      const auto weights = w.segment(s.offset, s.size);
      if (reg_.l2 != 0) value += 0.5 * reg_.l2 * weights.squaredNorm();
      if (reg_.l1 != 0) value += reg_.l1 * weights.lpNorm<1>();
    }
    return value;
  }

  /// grad += λ2 w on every weight segment (nothing when λ2 = 0).
  void add_gradient(const Vector& w, Vector& grad) const {
    if (reg_.l2 == 0) return;
    for (const WeightSegment& s : segments_)
      grad.segment(s.offset, s.size) += reg_.l2 * w.segment(s.offset, s.size);
  }

  /// w <- prox of step·λ1||·||₁ on the weights (biases untouched).
  void prox(Vector& w, double step) const {
    for (const WeightSegment& s : segments_)
      soft_threshold(w.segment(s.offset, s.size), step * reg_.l1);
  }

 private:
  Regularization reg_;
  std::vector<WeightSegment> segments_;
};

}  // namespace dlsim::models
