// Pool2d: the four taps of every 2×2 window as strided views (pool2d.hpp).
#include "models/objectives/cnn/pool2d.hpp"

#include <stdexcept>

namespace dlsim::models::cnn {

namespace {

using Strided = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using Array = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using TapView = Eigen::Map<const Array<T>, 0, Strided>;
template <class T>
using MutableTapView = Eigen::Map<Array<T>, 0, Strided>;

}  // namespace

template <class T>
Pool2d<T>::Pool2d(Shape input, PoolKind kind) : input_(input), kind_(kind) {
  if (input.height % 2 != 0 || input.width % 2 != 0 || input.height < 2 || input.width < 2)
    throw std::invalid_argument("2x2 pooling needs an even height and width, got " +
                                std::to_string(input.height) + "x" + std::to_string(input.width));
}

template <class T>
void Pool2d<T>::forward(const T* /*params*/, const Tensor<T>& in, Tensor<T>& out,
                        Workspace<T>& /*ws*/) const {
  const Index w = input_.width, rows = w / 2;
  const Index cols = input_.height * in.batch * input_.channels / 2;
  const T* x = in.data.data();
  const Strided stride(2 * w, 2);
  const TapView<T> a(x, rows, cols, stride), b(x + 1, rows, cols, stride),
      c(x + w, rows, cols, stride), d(x + w + 1, rows, cols, stride);
  out.resize(output_shape(), in.batch);
  Eigen::Map<Array<T>> y(out.data.data(), rows, cols);
  if (kind_ == PoolKind::max)
    y = a.max(b).max(c.max(d));
  else
    y = T(0.25) * (a + b + c + d);
}

template <class T>
void Pool2d<T>::backward(const T* /*params*/, const Tensor<T>& in, const Tensor<T>& out,
                         const Tensor<T>& grad_out, Tensor<T>* grad_in, T* /*grad_params*/,
                         Workspace<T>& /*ws*/) const {
  if (!grad_in) return;
  const Index w = input_.width, rows = w / 2;
  const Index cols = input_.height * in.batch * input_.channels / 2;
  grad_in->resize(input_, in.batch);
  const Strided stride(2 * w, 2);
  const Eigen::Map<const Array<T>> g(grad_out.data.data(), rows, cols);
  T* dx = grad_in->data.data();
  MutableTapView<T> da(dx, rows, cols, stride), db(dx + 1, rows, cols, stride),
      dc(dx + w, rows, cols, stride), dd(dx + w + 1, rows, cols, stride);
  if (kind_ == PoolKind::average) {
    const Array<T> quarter = T(0.25) * g;
    da = quarter;
    db = quarter;
    dc = quarter;
    dd = quarter;
    return;
  }
  const T* x = in.data.data();
  const TapView<T> a(x, rows, cols, stride), b(x + 1, rows, cols, stride),
      c(x + w, rows, cols, stride);
  const Eigen::Map<const Array<T>> y(out.data.data(), rows, cols);
  // First tap equal to the maximum wins.
  using Mask = Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic>;
  const Mask is_a = (a == y);
  const Mask is_b = (b == y) && !is_a;
  const Mask is_c = (c == y) && !(is_a || is_b);
  const Array<T> zero = Array<T>::Zero(rows, cols);
  da = is_a.select(g, zero);
  db = is_b.select(g, zero);
  dc = is_c.select(g, zero);
  dd = (is_a || is_b || is_c).select(zero, g);
}

template <class T>
double Pool2d<T>::forward_flops(Index batch) const {
  const double outputs = double(output_shape().size() * batch);
  return (kind_ == PoolKind::max ? 3 : 4) * outputs;
}

template <class T>
double Pool2d<T>::backward_flops(Index batch, bool input_gradient) const {
  if (!input_gradient) return 0;
  const double outputs = double(output_shape().size() * batch);
  return (kind_ == PoolKind::max ? 3 : 1) * outputs;
}

template class Pool2d<float>;
template class Pool2d<double>;

}  // namespace dlsim::models::cnn
