// GroupNorm: per (sample, group) blocks of the channel-major batch layout (formulas in
// group_norm.hpp). In the layout, the values of sample b and group g are the block of
// rows [b·HW, (b+1)·HW) and columns [g·C/G, (g+1)·C/G) of the (HW·B) × C matrix.
#include "models/objectives/cnn/group_norm.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace dlsim::models::cnn {

namespace {

// Workspace slots.
constexpr std::size_t kNormalized = 0;  // x̂, the layout of the input
constexpr std::size_t kInvStd = 1;      // 1/√(σ² + ε), B × G

}  // namespace

template <class T>
GroupNorm<T>::GroupNorm(Shape input, Index groups, double epsilon)
    : input_(input), groups_(groups), epsilon_(epsilon) {
  if (groups < 1 || input.channels % groups != 0)
    throw std::invalid_argument("group_norm: " + std::to_string(groups) + " groups do not divide " +
                                std::to_string(input.channels) + " channels");
}

template <class T>
std::vector<TensorInfo> GroupNorm<T>::tensors() const {
  const Index c = input_.channels;
  return {{.size = c, .weight = false, .constant = 1.0}, {.size = c, .weight = false}};
}

template <class T>
void GroupNorm<T>::forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
                           Workspace<T>& ws) const {
  const Index hw = input_.pixels(), c = input_.channels, per_group = c / groups_;
  const T values = T(per_group * hw);
  ws.buffers.resize(2);
  auto normalized = ws.buffers[kNormalized].resize(in.data.rows(), c);
  auto inv_std = ws.buffers[kInvStd].resize(in.batch, groups_);
  for (Index b = 0; b < in.batch; ++b)
    for (Index g = 0; g < groups_; ++g) {
      const auto x = in.data.block(b * hw, g * per_group, hw, per_group);
      auto x_hat = normalized.block(b * hw, g * per_group, hw, per_group);
      const T mean = x.sum() / values;
      x_hat = (x.array() - mean).matrix();
      const T variance = x_hat.squaredNorm() / values;
      const T inv = T(1) / std::sqrt(variance + T(epsilon_));
      x_hat *= inv;
      inv_std(b, g) = inv;
    }
  out.resize(input_, in.batch);
  for (Index k = 0; k < c; ++k)
    out.data.col(k) = (normalized.col(k).array() * params[k] + params[c + k]).matrix();
}

template <class T>
void GroupNorm<T>::backward(const T* params, const Tensor<T>& in, const Tensor<T>& /*out*/,
                            const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                            Workspace<T>& ws) const {
  const Index hw = input_.pixels(), c = input_.channels, per_group = c / groups_;
  const T values = T(per_group * hw);
  const auto normalized = std::as_const(ws.buffers[kNormalized]).view();
  const auto inv_std = std::as_const(ws.buffers[kInvStd]).view();
  for (Index k = 0; k < c; ++k) {
    grad_params[k] = (grad_out.data.col(k).array() * normalized.col(k).array()).sum();
    grad_params[c + k] = grad_out.data.col(k).sum();
  }
  if (!grad_in) return;
  grad_in->resize(input_, in.batch);
  MatView<T>& d = grad_in->data;  // ∂L/∂x̂ first, then ∂L/∂x in place
  for (Index k = 0; k < c; ++k) d.col(k) = grad_out.data.col(k) * params[k];
  for (Index b = 0; b < in.batch; ++b)
    for (Index g = 0; g < groups_; ++g) {
      auto block = d.block(b * hw, g * per_group, hw, per_group);
      const auto x_hat = normalized.block(b * hw, g * per_group, hw, per_group);
      const T mean_d = block.sum() / values;
      const T mean_dx = (block.array() * x_hat.array()).sum() / values;
      block = ((block.array() - mean_d - x_hat.array() * mean_dx) * inv_std(b, g)).matrix();
    }
}

template <class T>
double GroupNorm<T>::forward_flops(Index batch) const {
  return 7.0 * double(input_.size() * batch) + 3.0 * double(groups_ * batch);
}

template <class T>
double GroupNorm<T>::backward_flops(Index batch, bool input_gradient) const {
  const double per_channel = double(input_.pixels() * batch);
  const double c = double(input_.channels);
  double flops = c * (per_channel - 1) + c * (2 * per_channel - 1);
  if (input_gradient) flops += 8.0 * double(input_.size() * batch);
  return flops;
}

template class GroupNorm<float>;
template class GroupNorm<double>;

}  // namespace dlsim::models::cnn
