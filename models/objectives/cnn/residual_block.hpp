// Basic residual block of CIFAR-style ResNets (He, Zhang, Ren, Sun, CVPR 2016, §4.2),
// without batch normalization:
//   A = relu(conv3x3_s(X)),  Z = conv3x3_1(A) + S(X),  Y = relu(Z)
// with S = identity when the shape is unchanged, else a 1×1 convolution with stride s
// (the projection shortcut, "option B"; it has a bias like every convolution here).
// Backward: G_Z = G_Y ⊙ [Y > 0];  ∇ of conv_b from G_Z gives G_A;  G_A ⊙ [A > 0] into
// conv_a;  ∇X = ∇X(conv_a) + ∇X(S) (G_Z itself for the identity).
// Parameters: conv_a (W, b), conv_b (W, b), then the projection (W, b) if any.
// Without normalization the residual branches add up; conv_b starts with its He
// standard deviation scaled by `branch_scale` (the network passes L^(-1/2) for L blocks,
// as Fixup, Zhang, Dauphin, Ma, ICLR 2019, prescribes for two-layer branches) so that the
// output variance stays bounded at initialization.
// FLOPs: the convolutions' own counts, plus relu forward 1 per element of A and of Y, the
// sum Z: 1 per element; backward 2 per element of Y and of A (relu'), and with the input
// gradient 1 per input element to add the two paths.
#pragma once

#include <optional>

#include "models/objectives/cnn/conv2d.hpp"

namespace dlsim::models::cnn {

template <class T>
class ResidualBlock final : public Layer<T> {
 public:
  ResidualBlock(Shape input, Index out_channels, Index stride, double branch_scale = 1.0);

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

 private:
  Shape input_;
  Conv2d<T> conv_a_, conv_b_;
  std::optional<Conv2d<T>> projection_;
  double branch_scale_;
};

extern template class ResidualBlock<float>;
extern template class ResidualBlock<double>;

}  // namespace dlsim::models::cnn
