// Fully connected layer on a batch: flattens each sample (c, y, x) into n = C·H·W
// features, then
//   Y = F W + 1 bᵀ       W: n × m, column-major, then b (m); Y: B × m (H = W = 1)
//   ∇W = Fᵀ G,  ∇b = Gᵀ 1,  ∇F = G Wᵀ (unflattened back into the input layout).
// Flattening from the channel-major batch layout is one transposed block copy per
// channel (none when the input is already B × n). FLOPs as dense_classifier.hpp:
// forward 2Bnm + Bm; backward 2Bnm + Bm, plus 2Bnm with the input gradient.
#pragma once

#include "models/objectives/cnn/layer.hpp"

namespace dlsim::models::cnn {

template <class T>
class Dense final : public Layer<T> {
 public:
  Dense(Shape input, Index outputs);

  std::string name() const override { return "dense"; }
  Shape input_shape() const override { return input_; }
  Shape output_shape() const override { return {outputs_, 1, 1}; }
  std::vector<TensorInfo> tensors() const override;
  void forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
               Workspace<T>& ws) const override;
  void backward(const T* params, const Tensor<T>& in, const Tensor<T>& out,
                const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                Workspace<T>& ws) const override;
  double forward_flops(Index batch) const override;
  double backward_flops(Index batch, bool input_gradient) const override;

 private:
  Shape input_;
  Index outputs_;
};

extern template class Dense<float>;
extern template class Dense<double>;

}  // namespace dlsim::models::cnn
