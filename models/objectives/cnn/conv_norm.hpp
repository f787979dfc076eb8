// A convolution optionally followed by group normalization (group_norm.hpp): the unit a
// residual block is made of when batch normalization is replaced by group normalization
// (He et al. 2016 place the normalization after every convolution, before the ReLU).
// Without normalization it is exactly the convolution (same operations, same parameters).
// Parameters: the convolution's (W, b), then γ, β of the normalization if any.
// FLOPs: the sum of both layers' (backward: the normalization always gives the
// convolution its input gradient).
#pragma once

#include <optional>

#include "models/objectives/cnn/conv2d.hpp"
#include "models/objectives/cnn/group_norm.hpp"

namespace dlsim::models::cnn {

template <class T>
class ConvNorm final : public Layer<T> {
 public:
  /// `groups` 0: no normalization.
  ConvNorm(Shape input, ConvOptions options, Index groups) : conv_(input, options) {
    if (groups > 0) norm_.emplace(conv_.output_shape(), groups);
  }

  std::string name() const override { return norm_ ? "conv2d+group_norm" : "conv2d"; }
  Shape input_shape() const override { return conv_.input_shape(); }
  Shape output_shape() const override { return conv_.output_shape(); }
  std::vector<TensorInfo> tensors() const override {
    std::vector<TensorInfo> out = conv_.tensors();
    if (norm_) {
      const auto n = norm_->tensors();
      out.insert(out.end(), n.begin(), n.end());
    }
    return out;
  }
  void forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
               Workspace<T>& ws) const override {
    ws.children.resize(2);
    if (!norm_) return conv_.forward(params, in, out, ws.children[0]);
    ws.tensors.resize(2);  // the convolution's output, then its gradient (backward)
    conv_.forward(params, in, ws.tensors[0], ws.children[0]);
    norm_->forward(params + conv_.parameter_count(), ws.tensors[0], out, ws.children[1]);
  }
  void backward(const T* params, const Tensor<T>& in, const Tensor<T>& out,
                const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                Workspace<T>& ws) const override {
    if (!norm_)
      return conv_.backward(params, in, out, grad_out, grad_in, grad_params, ws.children[0]);
    const Index size = conv_.parameter_count();
    Tensor<T>& grad_conv = ws.tensors[1];
    norm_->backward(params + size, ws.tensors[0], out, grad_out, &grad_conv, grad_params + size,
                    ws.children[1]);
    conv_.backward(params, in, ws.tensors[0], grad_conv, grad_in, grad_params, ws.children[0]);
  }
  double forward_flops(Index batch) const override {
    return conv_.forward_flops(batch) + (norm_ ? norm_->forward_flops(batch) : 0.0);
  }
  double backward_flops(Index batch, bool input_gradient) const override {
    return conv_.backward_flops(batch, input_gradient) +
           (norm_ ? norm_->backward_flops(batch, true) : 0.0);
  }

  bool normalized() const { return norm_.has_value(); }

 private:
  Conv2d<T> conv_;
  std::optional<GroupNorm<T>> norm_;
};

}  // namespace dlsim::models::cnn
