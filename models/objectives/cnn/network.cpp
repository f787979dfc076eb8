// Network: layer chaining, the softmax cross-entropy head and the FLOP total
// (network.hpp).
#include "models/objectives/cnn/network.hpp"

#include <cmath>
#include <stdexcept>

namespace dlsim::models::cnn {

template <class T>
void Network<T>::add(LayerPtr<T> layer) {
  if (!(layer->input_shape() == output_))
    throw std::invalid_argument(layer->name() + ": input shape does not match the previous layer");
  output_ = layer->output_shape();
  offsets_.push_back(parameters_);
  parameters_ += layer->parameter_count();
  layers_.push_back(std::move(layer));
}

template <class T>
std::vector<TensorInfo> Network<T>::tensors() const {
  std::vector<TensorInfo> out;
  for (const auto& layer : layers_) {
    const auto t = layer->tensors();
    out.insert(out.end(), t.begin(), t.end());
  }
  return out;
}

template <class T>
const MatView<T>& Network<T>::forward(const T* params, const Eigen::Ref<const Matrix>& x,
                                      NetworkScratch<T>& s) const {
  const Index batch = x.rows(), hw = input_.pixels();
  if (x.cols() != input_.size())
    throw std::invalid_argument("network: samples have " + std::to_string(x.cols()) +
                                " features, expected " + std::to_string(input_.size()));
  s.input.resize(input_, batch);
  for (Index c = 0; c < input_.channels; ++c)
    Eigen::Map<Mat<T>>(s.input.data.col(c).data(), hw, batch) =
        x.middleCols(c * hw, hw).transpose().template cast<T>();
  s.activations.resize(layers_.size());
  s.workspaces.resize(layers_.size());
  const Tensor<T>* in = &s.input;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    layers_[l]->forward(params + offsets_[l], *in, s.activations[l], s.workspaces[l]);
    in = &s.activations[l];
  }
  return in->data;
}

template <class T>
double Network<T>::gradient(const T* params, const Eigen::Ref<const Matrix>& x,
                            const std::vector<int>& labels, T* grad, NetworkScratch<T>& s) const {
  const MatView<T>& logits = forward(params, x, s);
  const Index batch = x.rows();
  // Head: P = softmax(logits) row-wise; loss = mean −log P[y]; G = (P − Y)/B.
  Mat<T>& p = s.probabilities;
  p = logits;
  p.colwise() -= p.rowwise().maxCoeff();
  p = p.array().exp().matrix();
  const Eigen::Matrix<T, Eigen::Dynamic, 1> sums = p.rowwise().sum();
  p.array().colwise() /= sums.array();
  double loss = 0;
  for (Index i = 0; i < batch; ++i) {
    loss -= std::log(std::max(double(p(i, labels[std::size_t(i)])), 1e-300));
    p(i, labels[std::size_t(i)]) -= T(1);
  }
  p *= T(1) / T(batch);
  Tensor<T>* g = &s.grad[0];
  g->resize(output_, batch);
  g->data = p;
  for (std::size_t l = layers_.size(); l-- > 0;) {
    const Tensor<T>& in = l == 0 ? s.input : s.activations[l - 1];
    Tensor<T>* below = l == 0 ? nullptr : &s.grad[(layers_.size() - l) % 2];
    layers_[l]->backward(params + offsets_[l], in, s.activations[l], *g, below, grad + offsets_[l],
                         s.workspaces[l]);
    g = below;
  }
  return loss / double(batch);
}

template <class T>
double Network<T>::forward_flops(Index batch) const {
  double flops = 0;
  for (const auto& layer : layers_) flops += layer->forward_flops(batch);
  return flops;
}

template <class T>
double Network<T>::gradient_flops(Index batch) const {
  const double b = double(batch), c = double(output_.size());
  double flops = forward_flops(batch) + 5 * b * c + b + b * c;
  for (std::size_t l = 0; l < layers_.size(); ++l)
    flops += layers_[l]->backward_flops(batch, l > 0);
  return flops;
}

namespace {

template <class T>
Index workspace_values(const Workspace<T>& ws) {
  Index n = 0;
  for (const GrowingMat<T>& b : ws.buffers) n += b.capacity();
  for (const Tensor<T>& t : ws.tensors) n += t.capacity();
  for (const Workspace<T>& child : ws.children) n += workspace_values(child);
  return n;
}

}  // namespace

template <class T>
Index scratch_values(const NetworkScratch<T>& s) {
  Index n =
      s.input.capacity() + s.probabilities.size() + s.grad[0].capacity() + s.grad[1].capacity();
  for (const Tensor<T>& a : s.activations) n += a.capacity();
  for (const Workspace<T>& ws : s.workspaces) n += workspace_values(ws);
  return n;
}

template class Network<float>;
template class Network<double>;
template Index scratch_values(const NetworkScratch<float>&);
template Index scratch_values(const NetworkScratch<double>&);

}  // namespace dlsim::models::cnn
