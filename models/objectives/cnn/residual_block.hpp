// Basic residual block of CIFAR-style ResNets (He, Zhang, Ren, Sun, CVPR 2016, §4.2), with
// batch normalization either left out or replaced by group normalization (Wu and He 2018,
// group_norm.hpp), N_· below (identity without normalization):
//   A = relu(N_a(conv3x3_s(X))),  Z = N_b(conv3x3_1(A)) + S(X),  Y = relu(Z)
// S = identity when the shape is unchanged, else, by `shortcut`:
//  - projection ("option B"): N_p(conv1x1_s(X)), a 1×1 convolution with stride s (it has
//    a bias like every convolution here);
//  - zero_pad ("option A", the paper's choice for CIFAR, parameter-free): X subsampled
//    with stride s (every s-th row and column from the first), its Cin channels first and
//    Cout − Cin channels of zeros after them.
// Backward: G_Z = G_Y ⊙ [Y > 0];  ∇ of (conv_b, N_b) from G_Z gives G_A;  G_A ⊙ [A > 0]
// into (conv_a, N_a);  ∇X = ∇X(conv_a) + ∇X(S) (G_Z itself for the identity; for
// zero_pad, G_Z's first Cin channels added at the subsampled positions).
// Parameters: conv_a (W, b) [γ, β], conv_b (W, b) [γ, β], then the projection (W, b)
// [γ, β] if any.
// Without normalization the residual branches add up; conv_b starts with its He
// standard deviation scaled by `branch_scale` (the network passes L^(-1/2) for L blocks,
// as Fixup, Zhang, Dauphin, Ma, ICLR 2019, prescribes for two-layer branches) so that the
// output variance stays bounded at initialization.
// FLOPs: the convolutions' (and normalizations') own counts, plus relu forward 1 per
// element of A and of Y, the sum Z: 1 per element (zero_pad: 1 per added input element,
// Cin·Ho·Wo per sample); backward 2 per element of Y and of A (relu'), and with the input
// gradient 1 per input element to add the two paths (zero_pad: Cin·Ho·Wo per sample).
#pragma once

#include <optional>

#include "models/objectives/cnn/conv_norm.hpp"

namespace dlsim::models::cnn {

/// How a block whose shape changes gets its shortcut.
enum class Shortcut { projection, zero_pad };

struct BlockOptions {
  Shortcut shortcut = Shortcut::projection;
  Index groups = 0;  // group normalization after every convolution; 0: none
};

template <class T>
class ResidualBlock final : public Layer<T> {
 public:
  /// Throws std::invalid_argument for a zero_pad shortcut to fewer channels, or groups
  /// that do not divide the channels.
  ResidualBlock(Shape input, Index out_channels, Index stride, double branch_scale = 1.0,
                BlockOptions options = {});

  std::string name() const override { return "residual_block"; }
  Shape input_shape() const override { return input_; }
  Shape output_shape() const override { return conv_b_.output_shape(); }
  std::vector<TensorInfo> tensors() const override;
  void forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
               Workspace<T>& ws) const override;
  void backward(const T* params, const Tensor<T>& in, const Tensor<T>& out,
                const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                Workspace<T>& ws) const override;
  double forward_flops(Index batch) const override;
  double backward_flops(Index batch, bool input_gradient) const override;

  bool has_projection() const { return projection_.has_value(); }
  /// The shape changes and the shortcut is option A (zero padding, subsampling).
  bool has_zero_pad() const { return zero_pad_; }

 private:
  // The elements the zero_pad shortcut adds per sample: Cin·Ho·Wo.
  double shortcut_elements() const;

  Shape input_;
  Index stride_;
  ConvNorm<T> conv_a_, conv_b_;
  std::optional<ConvNorm<T>> projection_;
  bool zero_pad_ = false;
  double branch_scale_;
};

extern template class ResidualBlock<float>;
extern template class ResidualBlock<double>;

}  // namespace dlsim::models::cnn
