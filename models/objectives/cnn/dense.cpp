// Dense: flatten (one transposed block per channel) + GEMM (dense.hpp).
#include "models/objectives/cnn/dense.hpp"

#include <stdexcept>

namespace dlsim::models::cnn {

namespace {
constexpr std::size_t kFlat = 0;      // flattened input F (B × n)
constexpr std::size_t kGradFlat = 1;  // ∇F
}  // namespace

template <class T>
Dense<T>::Dense(Shape input, Index outputs) : input_(input), outputs_(outputs) {
  if (outputs < 1) throw std::invalid_argument("dense: outputs must be >= 1");
}

template <class T>
std::vector<TensorInfo> Dense<T>::tensors() const {
  return {{input_.size() * outputs_, input_.size(), outputs_, true},
          {outputs_, input_.size(), 0, false}};
}

template <class T>
void Dense<T>::forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
                       Workspace<T>& ws) const {
  const Index batch = in.batch, hw = input_.pixels(), n = input_.size();
  if (hw > 1) {
    ws.buffers.resize(2);
    auto f = ws.buffers[kFlat].resize(batch, n);
    for (Index c = 0; c < input_.channels; ++c)
      f.middleCols(c * hw, hw) =
          Eigen::Map<const Mat<T>>(in.data.col(c).data(), hw, batch).transpose();
  }
  const MatView<T> flat = hw > 1 ? ws.buffers[kFlat].view() : in.data;
  const Eigen::Map<const Mat<T>> weights(params, n, outputs_);
  const Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>> bias(params + n * outputs_, outputs_);
  out.resize(output_shape(), batch);
  out.data.noalias() = flat * weights;
  out.data.rowwise() += bias;
}

template <class T>
void Dense<T>::backward(const T* params, const Tensor<T>& in, const Tensor<T>& /*out*/,
                        const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                        Workspace<T>& ws) const {
  const Index batch = in.batch, hw = input_.pixels(), n = input_.size();
  const MatView<T> flat = hw > 1 ? ws.buffers[kFlat].view() : in.data;
  Eigen::Map<Mat<T>> grad_weights(grad_params, n, outputs_);
  grad_weights.noalias() = flat.transpose() * grad_out.data;
  Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>(grad_params + n * outputs_, outputs_) =
      grad_out.data.colwise().sum();
  if (!grad_in) return;
  const Eigen::Map<const Mat<T>> weights(params, n, outputs_);
  grad_in->resize(input_, batch);
  if (hw == 1) {
    grad_in->data.noalias() = grad_out.data * weights.transpose();
    return;
  }
  auto grad_flat = ws.buffers[kGradFlat].resize(batch, n);
  grad_flat.noalias() = grad_out.data * weights.transpose();
  for (Index c = 0; c < input_.channels; ++c)
    Eigen::Map<Mat<T>>(grad_in->data.col(c).data(), hw, batch) =
        grad_flat.middleCols(c * hw, hw).transpose();
}

template <class T>
double Dense<T>::forward_flops(Index batch) const {
  const double b = double(batch), n = double(input_.size()), m = double(outputs_);
  return 2 * b * n * m + b * m;
}

template <class T>
double Dense<T>::backward_flops(Index batch, bool input_gradient) const {
  const double b = double(batch), n = double(input_.size()), m = double(outputs_);
  return 2 * b * n * m + b * m + (input_gradient ? 2 * b * n * m : 0.0);
}

template class Dense<float>;
template class Dense<double>;

}  // namespace dlsim::models::cnn
