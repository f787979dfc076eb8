// Global average pooling: Y[b, c] = (1/HW) Σ_{y,x} X[c, b, y, x]. In the channel-major
// batch layout the input seen as an HW × (B·C) matrix has one column per (c, b), and its
// column means, read as a B × C column-major matrix, are Y; backward spreads G/HW over
// each window. FLOPs: forward HW per output (HW − 1 adds, 1 multiply); backward 1 per
// output (G/HW), the spreading is a copy.
#pragma once

#include "models/objectives/cnn/layer.hpp"

namespace dlsim::models::cnn {

template <class T>
class GlobalAvgPool final : public Layer<T> {
 public:
  explicit GlobalAvgPool(Shape input) : input_(input) {}

  std::string name() const override { return "global_avg_pool"; }
  Shape input_shape() const override { return input_; }
  Shape output_shape() const override { return {input_.channels, 1, 1}; }
  void forward(const T* /*params*/, const Tensor<T>& in, Tensor<T>& out,
               Workspace<T>& /*ws*/) const override {
    const Index hw = input_.pixels();
    out.resize(output_shape(), in.batch);
    Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>(out.data.data(), in.batch * input_.channels) =
        Eigen::Map<const Mat<T>>(in.data.data(), hw, in.batch * input_.channels).colwise().sum() *
        (T(1) / T(hw));
  }
  void backward(const T* /*params*/, const Tensor<T>& in, const Tensor<T>& /*out*/,
                const Tensor<T>& grad_out, Tensor<T>* grad_in, T* /*grad_params*/,
                Workspace<T>& /*ws*/) const override {
    if (!grad_in) return;
    const Index hw = input_.pixels(), columns = in.batch * input_.channels;
    grad_in->resize(input_, in.batch);
    const Eigen::Matrix<T, 1, Eigen::Dynamic> scaled =
        Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>(grad_out.data.data(), columns) *
        (T(1) / T(hw));
    Eigen::Map<Mat<T>>(grad_in->data.data(), hw, columns) = scaled.replicate(hw, 1);
  }
  double forward_flops(Index batch) const override {
    return double(input_.pixels() * input_.channels * batch);
  }
  double backward_flops(Index batch, bool input_gradient) const override {
    return input_gradient ? double(input_.channels * batch) : 0.0;
  }

 private:
  Shape input_;
};

}  // namespace dlsim::models::cnn
