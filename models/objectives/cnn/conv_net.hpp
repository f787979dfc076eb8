// `lenet5` and `resnet`: convolutional classifiers (architectures.hpp) as objectives —
// mean softmax cross-entropy of the network's logits + (λ2/2)||W||² + λ1||W||₁ over the
// weight tensors (biases are not regularized).
//
// Precision: the parameter vector the simulator sees is double, as for every model.
// With `precision: float` (the default) a gradient casts the parameters to float, runs
// forward and backward in float (single-precision GEMMs are twice as fast as double on
// SSE/AVX, which the 15 s LeNet-5 epoch target needs) and casts the gradient back; the
// regularizer terms are added in double. `precision: double` runs everything in double
// (the finite-difference tests use it). Losses and accuracies are evaluated in the same
// precision, in blocks of rows.
//
// Initialization: every weight tensor from N(0, σ²) with σ from init.hpp (He for relu,
// Xavier for tanh, with the layer's fans: fan_in = Cin·k·k, fan_out = Cout·k·k) times the
// tensor's init_scale (residual branches), drawn from the run's seed tensor after tensor;
// biases 0. `init: torch` instead draws every weight and bias tensor from
// U(±1/√fan_in), without init_scale, as PyTorch's layers start. tensor_sizes() lists every weight
// and bias tensor (per_tensor compression). gradient_cost: Network::gradient_flops, plus 2 per
// weight for λ2 (multiply, add).
#pragma once

#include <memory>

#include "models/objectives/cnn/architectures.hpp"
#include "models/objectives/init.hpp"
#include "models/objectives/objective.hpp"
#include "models/objectives/weight_penalty.hpp"

namespace dlsim::models {

enum class Precision { single, double_ };

class ConvNet final : public SummedObjective {
 public:
  ConvNet(cnn::Architecture architecture, Regularization reg, InitOptions init,
          Precision precision);

  Index dimension() const override { return dimension_; }
  std::vector<Index> tensor_sizes() const override;
  void gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                Vector& grad) const override;
  ComputeCost gradient_cost(Index batch) const override;
  void prox(Vector& w, double step) const override;
  /// Σ cross-entropy and Σ [argmax = label] over rows [begin, end), in blocks of rows.
  std::optional<LossSums> data_sums(const Vector& w, const Dataset& data, Index begin,
                                    Index end) const override;
  /// Σ over weight tensors of (λ2/2)||W||² + λ1||W||₁ (biases excluded).
  double regularizer(const Vector& w) const override;
  Vector initial_point(std::mt19937_64& rng) const override;

  const cnn::Network<double>& network() const { return net_double_; }

  /// Bytes of the per-thread scratch of batch gradients of `batch` rows and evaluation
  /// blocks (the memory estimate): a gradient and a forward pass on one blank sample each
  /// are measured (every buffer is linear in the rows) and scaled, the gradient's to the
  /// batch and the forward pass's to an evaluation block, and the two added. Builds the
  /// layers, but no parameter vector.
  static double thread_bytes(const cnn::Architecture& architecture, Precision precision,
                             Index batch);

 private:
  void check(const Vector& w, const Dataset& data) const;

  cnn::Architecture architecture_;
  Regularization reg_;
  InitOptions init_;
  Precision precision_;
  cnn::Network<float> net_float_;
  cnn::Network<double> net_double_;
  std::vector<cnn::TensorInfo> tensors_;
  Index dimension_ = 0;
  WeightPenalty penalty_;  // on the weight tensors
};

static_assert(check_objective<ConvNet>());

}  // namespace dlsim::models
