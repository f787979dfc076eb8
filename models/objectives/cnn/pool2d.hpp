// 2×2 pooling with stride 2 (max or average) over a whole batch at once. With H and W
// even, the four taps of every window are four strided views of the tensor seen as a
// W × (H·B·C) column-major matrix (inner stride 2, outer stride 2W, offsets 0, 1, W,
// W + 1), so forward and backward are elementwise expressions of those views.
//
//   max:      Y = max(A, B, C, D);  the gradient goes to the first tap (in the order A =
//             top-left, B = top-right, C = bottom-left, D = bottom-right) equal to the
//             maximum, so ties are broken the same way every time and the gradient of a
//             window sums to its output gradient. FLOPs: forward 3 (max) per output,
//             backward 3 (compares) per output.
//   average:  Y = (A + B + C + D)/4; each tap gets G/4. FLOPs: forward 4, backward 1 per
//             output.
#pragma once

#include "models/objectives/cnn/layer.hpp"

namespace dlsim::models::cnn {

enum class PoolKind { max, average };

template <class T>
class Pool2d final : public Layer<T> {
 public:
  /// Throws std::invalid_argument unless height and width are even.
  Pool2d(Shape input, PoolKind kind);

  std::string name() const override { return kind_ == PoolKind::max ? "maxpool" : "avgpool"; }
  Shape input_shape() const override { return input_; }
  Shape output_shape() const override {
    return {input_.channels, input_.height / 2, input_.width / 2};
  }
  void forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
               Workspace<T>& ws) const override;
  void backward(const T* params, const Tensor<T>& in, const Tensor<T>& out,
                const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                Workspace<T>& ws) const override;
  double forward_flops(Index batch) const override;
  double backward_flops(Index batch, bool input_gradient) const override;

 private:
  Shape input_;
  PoolKind kind_;
};

extern template class Pool2d<float>;
extern template class Pool2d<double>;

}  // namespace dlsim::models::cnn
