// ResidualBlock: two convolutions and a shortcut (residual_block.hpp).
#include "models/objectives/cnn/residual_block.hpp"

#include "models/objectives/cnn/activation.hpp"

namespace dlsim::models::cnn {

namespace {

// Workspace tensors and children.
constexpr std::size_t kA = 0, kZ = 1, kShortcut = 2, kGradZ = 3, kGradA = 4, kGradShort = 5;
constexpr std::size_t kConvA = 0, kConvB = 1, kProjection = 2;

}  // namespace

template <class T>
ResidualBlock<T>::ResidualBlock(Shape input, Index out_channels, Index stride, double branch_scale)
    : input_(input),
      conv_a_(input, {input.channels, out_channels, 3, stride, 1}),
      conv_b_(conv_a_.output_shape(), {out_channels, out_channels, 3, 1, 1}),
      branch_scale_(branch_scale) {
  if (stride != 1 || out_channels != input.channels) {
    projection_.emplace(input, ConvOptions{input.channels, out_channels, 1, stride, 0});
  }
}

template <class T>
std::vector<TensorInfo> ResidualBlock<T>::tensors() const {
  std::vector<TensorInfo> out = conv_a_.tensors();
  std::vector<TensorInfo> b = conv_b_.tensors();
  b[0].init_scale = branch_scale_;
  out.insert(out.end(), b.begin(), b.end());
  if (projection_) {
    const auto p = projection_->tensors();
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

template <class T>
void ResidualBlock<T>::forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
                               Workspace<T>& ws) const {
  ws.tensors.resize(6);
  ws.children.resize(3);
  const T* params_b = params + conv_a_.parameter_count();
  const T* params_p = params_b + conv_b_.parameter_count();
  Tensor<T>& a = ws.tensors[kA];
  Tensor<T>& z = ws.tensors[kZ];
  conv_a_.forward(params, in, a, ws.children[kConvA]);
  activate(Activation::relu, a.data, a.data);
  conv_b_.forward(params_b, a, z, ws.children[kConvB]);
  if (projection_) {
    Tensor<T>& shortcut = ws.tensors[kShortcut];
    projection_->forward(params_p, in, shortcut, ws.children[kProjection]);
    z.data += shortcut.data;
  } else {
    z.data += in.data;
  }
  out.resize(z.shape, z.batch);
  activate(Activation::relu, z.data, out.data);
}

template <class T>
void ResidualBlock<T>::backward(const T* params, const Tensor<T>& in, const Tensor<T>& out,
                                const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                                Workspace<T>& ws) const {
  const Index size_a = conv_a_.parameter_count(), size_b = conv_b_.parameter_count();
  const T* params_b = params + size_a;
  const T* params_p = params_b + size_b;
  Tensor<T>& a = ws.tensors[kA];
  Tensor<T>& grad_z = ws.tensors[kGradZ];
  Tensor<T>& grad_a = ws.tensors[kGradA];
  grad_z.resize(out.shape, out.batch);
  grad_z.data = grad_out.data;
  activation_backward(Activation::relu, out.data, grad_z.data);
  conv_b_.backward(params_b, a, ws.tensors[kZ], grad_z, &grad_a, grad_params + size_a,
                   ws.children[kConvB]);
  activation_backward(Activation::relu, a.data, grad_a.data);
  conv_a_.backward(params, in, a, grad_a, grad_in, grad_params, ws.children[kConvA]);
  if (projection_) {
    Tensor<T>& grad_short = ws.tensors[kGradShort];
    projection_->backward(params_p, in, ws.tensors[kShortcut], grad_z,
                          grad_in ? &grad_short : nullptr, grad_params + size_a + size_b,
                          ws.children[kProjection]);
    if (grad_in) grad_in->data += grad_short.data;
  } else if (grad_in) {
    grad_in->data += grad_z.data;
  }
}

template <class T>
double ResidualBlock<T>::forward_flops(Index batch) const {
  const double a = double(conv_a_.output_shape().size() * batch);
  const double y = double(output_shape().size() * batch);
  double flops = conv_a_.forward_flops(batch) + a + conv_b_.forward_flops(batch) + y + y;
  if (projection_) flops += projection_->forward_flops(batch);
  return flops;
}

template <class T>
double ResidualBlock<T>::backward_flops(Index batch, bool input_gradient) const {
  const double a = double(conv_a_.output_shape().size() * batch);
  const double y = double(output_shape().size() * batch);
  double flops = 2 * y + conv_b_.backward_flops(batch, true) + 2 * a +
                 conv_a_.backward_flops(batch, input_gradient);
  if (projection_) flops += projection_->backward_flops(batch, input_gradient);
  if (input_gradient) flops += double(input_.size() * batch);
  return flops;
}

template class ResidualBlock<float>;
template class ResidualBlock<double>;

}  // namespace dlsim::models::cnn
