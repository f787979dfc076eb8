// ActivationLayer: elementwise relu / tanh over the whole batch (activation.hpp).
#include "models/objectives/cnn/activation.hpp"

namespace dlsim::models::cnn {

template <class T>
void activate(Activation activation, const MatView<T>& z, MatView<T> y) {
  if (activation == Activation::relu)
    y = z.cwiseMax(T(0));
  else
    y = z.array().tanh().matrix();
}

template <class T>
void activation_backward(Activation activation, const MatView<T>& y, MatView<T> grad) {
  if (activation == Activation::relu)
    grad.array() *= (y.array() > T(0)).template cast<T>();
  else
    grad.array() *= T(1) - y.array().square();
}

template <class T>
void ActivationLayer<T>::forward(const T* /*params*/, const Tensor<T>& in, Tensor<T>& out,
                                 Workspace<T>& /*ws*/) const {
  out.resize(shape_, in.batch);
  activate<T>(activation_, in.data, out.data);
}

template <class T>
void ActivationLayer<T>::backward(const T* /*params*/, const Tensor<T>& /*in*/,
                                  const Tensor<T>& out, const Tensor<T>& grad_out,
                                  Tensor<T>* grad_in, T* /*grad_params*/,
                                  Workspace<T>& /*ws*/) const {
  if (!grad_in) return;
  grad_in->resize(shape_, out.batch);
  grad_in->data = grad_out.data;
  activation_backward<T>(activation_, out.data, grad_in->data);
}

template void activate<float>(Activation, const MatView<float>&, MatView<float>);
template void activate<double>(Activation, const MatView<double>&, MatView<double>);
template void activation_backward<float>(Activation, const MatView<float>&, MatView<float>);
template void activation_backward<double>(Activation, const MatView<double>&, MatView<double>);
template class ActivationLayer<float>;
template class ActivationLayer<double>;

}  // namespace dlsim::models::cnn
