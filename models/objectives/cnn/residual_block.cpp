// ResidualBlock: two convolutions and a shortcut (residual_block.hpp).
#include "models/objectives/cnn/residual_block.hpp"

#include <stdexcept>

#include "models/objectives/cnn/activation.hpp"

namespace dlsim::models::cnn {

namespace {

// Workspace tensors and children.
constexpr std::size_t kA = 0, kZ = 1, kShortcut = 2, kGradZ = 3, kGradA = 4, kGradShort = 5;
constexpr std::size_t kConvA = 0, kConvB = 1, kProjection = 2;

template <class T>
using ShortcutRow = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>;
template <class T>
using ShortcutConstRow = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>;
template <class T>
using ShortcutStridedRow = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>, 0, Eigen::InnerStride<>>;
template <class T>
using ShortcutConstStridedRow =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>, 0, Eigen::InnerStride<>>;

// Option A's subsampling: calls visit(c, from, to) for every channel c < in.channels,
// sample b and output row y, with `from` the offset in column c of an input tensor of
// the start of row s·y of sample b (then every s-th value), and `to` the offset in
// column c of an output tensor of row y of sample b. Channels from in.channels on are
// the zero padding: nothing to visit.
template <class Visit>
void for_each_subsampled_row(const Shape& in, const Shape& out, Index batch, Index stride,
                             Visit&& visit) {
  for (Index c = 0; c < in.channels; ++c)
    for (Index b = 0; b < batch; ++b)
      for (Index y = 0; y < out.height; ++y)
        visit(c, (b * in.height + stride * y) * in.width, (b * out.height + y) * out.width);
}

}  // namespace

template <class T>
ResidualBlock<T>::ResidualBlock(Shape input, Index out_channels, Index stride, double branch_scale,
                                BlockOptions options)
    : input_(input),
      stride_(stride),
      conv_a_(input, {input.channels, out_channels, 3, stride, 1}, options.groups),
      conv_b_(conv_a_.output_shape(), {out_channels, out_channels, 3, 1, 1}, options.groups),
      branch_scale_(branch_scale) {
  if (stride == 1 && out_channels == input.channels) return;  // identity shortcut
  if (options.shortcut == Shortcut::projection) {
    projection_.emplace(input, ConvOptions{input.channels, out_channels, 1, stride, 0},
                        options.groups);
  } else {
    if (out_channels < input.channels)
      throw std::invalid_argument("residual_block: a zero-padding shortcut cannot go from " +
                                  std::to_string(input.channels) + " to " +
                                  std::to_string(out_channels) + " channels");
    zero_pad_ = true;
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
  activate<T>(Activation::relu, a.data, a.data);
  conv_b_.forward(params_b, a, z, ws.children[kConvB]);
  if (projection_) {
    Tensor<T>& shortcut = ws.tensors[kShortcut];
    projection_->forward(params_p, in, shortcut, ws.children[kProjection]);
    z.data += shortcut.data;
  } else if (zero_pad_) {
    const Index wo = z.shape.width;
    for_each_subsampled_row(input_, z.shape, in.batch, stride_, [&](Index c, Index from, Index to) {
      ShortcutRow<T>(z.data.col(c).data() + to, wo) += ShortcutConstStridedRow<T>(
          in.data.col(c).data() + from, wo, Eigen::InnerStride<>(stride_));
    });
  } else {
    z.data += in.data;
  }
  out.resize(z.shape, z.batch);
  activate<T>(Activation::relu, z.data, out.data);
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
  activation_backward<T>(Activation::relu, out.data, grad_z.data);
  conv_b_.backward(params_b, a, ws.tensors[kZ], grad_z, &grad_a, grad_params + size_a,
                   ws.children[kConvB]);
  activation_backward<T>(Activation::relu, a.data, grad_a.data);
  conv_a_.backward(params, in, a, grad_a, grad_in, grad_params, ws.children[kConvA]);
  if (projection_) {
    Tensor<T>& grad_short = ws.tensors[kGradShort];
    projection_->backward(params_p, in, ws.tensors[kShortcut], grad_z,
                          grad_in ? &grad_short : nullptr, grad_params + size_a + size_b,
                          ws.children[kProjection]);
    if (grad_in) grad_in->data += grad_short.data;
  } else if (zero_pad_) {
    // grad_in at the subsampled positions += G_Z's first Cin channels (the same rows the
    // forward pass visited, with the roles of input and output swapped).
    const Index wo = grad_z.shape.width;
    if (grad_in)
      for_each_subsampled_row(input_, grad_z.shape, grad_z.batch, stride_,
                              [&](Index c, Index from, Index to) {
                                ShortcutStridedRow<T>(grad_in->data.col(c).data() + from, wo,
                                                      Eigen::InnerStride<>(stride_)) +=
                                    ShortcutConstRow<T>(grad_z.data.col(c).data() + to, wo);
                              });
  } else if (grad_in) {
    grad_in->data += grad_z.data;
  }
}

template <class T>
double ResidualBlock<T>::shortcut_elements() const {
  const Shape o = output_shape();
  return double(input_.channels * o.height * o.width);
}

template <class T>
double ResidualBlock<T>::forward_flops(Index batch) const {
  const double a = double(conv_a_.output_shape().size() * batch);
  const double y = double(output_shape().size() * batch);
  const double sum = zero_pad_ ? shortcut_elements() * double(batch) : y;
  double flops = conv_a_.forward_flops(batch) + a + conv_b_.forward_flops(batch) + sum + y;
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
  if (input_gradient)
    flops += zero_pad_ ? shortcut_elements() * double(batch) : double(input_.size() * batch);
  return flops;
}

template class ResidualBlock<float>;
template class ResidualBlock<double>;

}  // namespace dlsim::models::cnn
