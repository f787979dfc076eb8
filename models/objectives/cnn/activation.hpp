// Elementwise activation of a batch: relu(z) = max(z, 0) or tanh(z). Backward uses the
// output: relu' = [y > 0], tanh' = 1 − y². FLOPs per element: forward 1; backward 2
// (relu: compare, multiply) or 3 (tanh: square, subtract, multiply) — the counts of
// dense_classifier.hpp.
#pragma once

#include "models/objectives/cnn/layer.hpp"
#include "models/objectives/dense_classifier.hpp"

namespace dlsim::models::cnn {

template <class T>
class ActivationLayer final : public Layer<T> {
 public:
  ActivationLayer(Shape shape, Activation activation) : shape_(shape), activation_(activation) {}

  std::string name() const override { return activation_ == Activation::relu ? "relu" : "tanh"; }
  Shape input_shape() const override { return shape_; }
  Shape output_shape() const override { return shape_; }
  void forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
               Workspace<T>& ws) const override;
  void backward(const T* params, const Tensor<T>& in, const Tensor<T>& out,
                const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                Workspace<T>& ws) const override;
  double forward_flops(Index batch) const override { return double(shape_.size() * batch); }
  double backward_flops(Index batch, bool input_gradient) const override {
    if (!input_gradient) return 0;
    return (activation_ == Activation::relu ? 2.0 : 3.0) * double(shape_.size() * batch);
  }

 private:
  Shape shape_;
  Activation activation_;
};

/// y = act(z) elementwise (y may be z, and has z's shape), and g ⊙ act'(y) (in place on
/// `grad`), shared with the residual block.
template <class T>
void activate(Activation activation, const MatView<T>& z, MatView<T> y);
template <class T>
void activation_backward(Activation activation, const MatView<T>& y, MatView<T> grad);

extern template class ActivationLayer<float>;
extern template class ActivationLayer<double>;

}  // namespace dlsim::models::cnn
