// A sequential network of layers (layer.hpp) with a softmax cross-entropy head:
//   logits = L_K(... L_1(X)),  f = −(1/B) Σ_i log softmax(logits_i)[y_i]
//   G_K = (softmax(logits) − Y)/B, then each layer's backward from the top; the first
//   layer does not compute the gradient of the input images.
// Parameters are one contiguous vector, layer after layer (each layer's slice laid out as
// its tensors() say); a layer reads its slice through Eigen::Map views, so nothing is
// copied. Scratch tensors live in a NetworkScratch owned by the caller (one per thread).
// FLOPs of a gradient on B samples: Σ forward + Σ backward (the first without input
// gradient) + the head, 5BC (row max, subtract, exp, row sum, divide) + B + BC (P − Y,
// ·1/B), as dense_classifier.hpp counts it.
#pragma once

#include <vector>

#include "models/objectives/cnn/layer.hpp"

namespace dlsim::models::cnn {

template <class T>
struct NetworkScratch {
  Tensor<T> input;
  std::vector<Tensor<T>> activations;  // output of every layer
  Tensor<T> grad[2];                   // ping-pong gradients between layers
  std::vector<Workspace<T>> workspaces;
  Mat<T> probabilities;
};

/// The values a scratch holds (every tensor, buffer and nested workspace): what a
/// gradient or forward pass left in it; linear in the batch (the memory estimate).
template <class T>
Index scratch_values(const NetworkScratch<T>& s);

template <class T>
class Network {
 public:
  explicit Network(Shape input) : input_(input), output_(input) {}
  Network(Network&&) noexcept = default;
  Network& operator=(Network&&) noexcept = default;

  /// Appends a layer; throws std::invalid_argument unless its input shape is the current
  /// output shape.
  void add(LayerPtr<T> layer);

  Shape input_shape() const { return input_; }
  Shape output_shape() const { return output_; }
  Index parameter_count() const { return parameters_; }
  const std::vector<LayerPtr<T>>& layers() const { return layers_; }
  /// Every parameter tensor, layer after layer.
  std::vector<TensorInfo> tensors() const;

  /// Logits (B × classes) of the rows of `x` (B × C·H·W, each row a sample in (c, y, x)
  /// order, as data sets store images).
  const MatView<T>& forward(const T* params, const Eigen::Ref<const Matrix>& x,
                            NetworkScratch<T>& s) const;
  /// Mean cross-entropy over the rows of `x` with class indices `labels`; its gradient
  /// into `grad` (parameter_count() entries, overwritten). Returns the loss.
  double gradient(const T* params, const Eigen::Ref<const Matrix>& x,
                  const std::vector<int>& labels, T* grad, NetworkScratch<T>& s) const;

  double forward_flops(Index batch) const;
  /// Forward + backward + loss head of one gradient.
  double gradient_flops(Index batch) const;

 private:
  Shape input_, output_;
  std::vector<LayerPtr<T>> layers_;
  std::vector<Index> offsets_;
  Index parameters_ = 0;
};

extern template class Network<float>;
extern template class Network<double>;
extern template Index scratch_values(const NetworkScratch<float>&);
extern template Index scratch_values(const NetworkScratch<double>&);

}  // namespace dlsim::models::cnn
