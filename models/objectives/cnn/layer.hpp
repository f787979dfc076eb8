// The building blocks of convolutional networks (models/objectives/cnn): the batched
// tensor layout every layer shares and the interface of a layer.
//
// Layout ("channel-major batch"): a batch of B samples of shape C × H × W is one
// column-major matrix of H·W·B rows and C columns; column c holds channel c of every
// sample, sample after sample, each image row-major (x fastest). Entry (c, b, y, x) sits
// at flat index ((c·B + b)·H + y)·W + x. This makes
//  - a convolution one GEMM over the whole batch after im2col (rows: output pixels of
//    every sample; columns: Cin·k·k taps), whose result already has this layout;
//  - 2×2 pooling four strided views of the whole tensor (H even: pairs of rows never
//    straddle two images);
//  - a dense layer's output (H = W = 1) the usual B × n matrix.
//
// A layer reads its parameters from its slice of the network's one contiguous parameter
// vector (per-layer Eigen::Map views, no copies) and writes its gradient into the same
// slice of the gradient vector. It keeps what backward needs in a per-thread Workspace
// that the network owns, so a layer object is immutable and shared by all workers.
//
// FLOP convention (objective.hpp): a multiply-add of a matrix product counts 2, every
// other arithmetic operation (add, multiply, max, compare, exp, tanh) counts 1; copies,
// zero fills and selects count 0.
#pragma once

#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "models/data/dataset.hpp"

namespace dlsim::models::cnn {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;  // column-major

/// Shape of one sample.
struct Shape {
  Index channels = 1, height = 1, width = 1;
  Index pixels() const { return height * width; }
  Index size() const { return channels * height * width; }
  bool operator==(const Shape&) const = default;
};

/// A column-major matrix whose storage only grows: resize() to fewer values keeps the
/// allocation. Every buffer and output tensor of a layer lives in one: a thread
/// alternates between block sizes (an evaluation's full blocks and a range's last, shorter
/// one; a gradient's batch and an evaluation's block), and with Eigen matrices each change
/// freed and allocated every buffer again. LeNet-5's im2col block is 39 MB, above glibc's
/// mmap threshold, so it was mapped and faulted in anew each time; the smaller ones came
/// back from a heap top the allocator had trimmed meanwhile, faulted in again too. Read
/// through Maps aligned as an Eigen matrix's own storage (Eigen::AlignedMax), so every
/// expression takes the same paths and gives the same bits.
template <class T>
class GrowingMat {
 public:
  using View = Eigen::Map<Mat<T>, Eigen::AlignedMax>;
  using ConstView = Eigen::Map<const Mat<T>, Eigen::AlignedMax>;

  GrowingMat() = default;
  GrowingMat(GrowingMat&& other) noexcept { *this = std::move(other); }
  GrowingMat& operator=(GrowingMat&& other) noexcept {
    if (this == &other) return *this;
    storage_ = std::move(other.storage_);
    rows_ = std::exchange(other.rows_, 0);
    cols_ = std::exchange(other.cols_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    return *this;
  }

  /// Sets the shape; the values are unspecified (as after Mat<T>::resize).
  View resize(Index rows, Index cols) {
    const Index n = rows * cols;
    if (n > capacity_) {
      storage_.reset();  // the old block first: never both at once
      storage_.reset(new (kAlign) T[std::size_t(n)]);
      capacity_ = n;
    }
    rows_ = rows;
    cols_ = cols;
    return view();
  }
  View view() { return View(storage_.get(), rows_, cols_); }
  ConstView view() const { return ConstView(storage_.get(), rows_, cols_); }
  /// Values allocated (what the memory estimate counts).
  Index capacity() const { return capacity_; }

 private:
  static constexpr std::align_val_t kAlign{EIGEN_MAX_ALIGN_BYTES};
  struct Free {
    void operator()(T* p) const { ::operator delete[](p, kAlign); }
  };
  std::unique_ptr<T[], Free> storage_;
  Index rows_ = 0, cols_ = 0, capacity_ = 0;
};

/// What a Tensor's data and a workspace buffer are read and written through.
template <class T>
using MatView = typename GrowingMat<T>::View;

/// A batch in the channel-major batch layout: data is (H·W·batch) × C, a view of storage
/// that only grows (GrowingMat). resize() sets the shape before anything is written:
/// assigning to `data` copies values and needs equal shapes (a Map's assignment). Copies
/// are deep; a move takes the storage and leaves the source empty.
template <class T>
class Tensor {
 public:
  MatView<T> data{nullptr, 0, 0};
  Shape shape;
  Index batch = 0;

  Tensor() = default;
  Tensor(const Tensor& other) { *this = other; }
  Tensor(Tensor&& other) noexcept { *this = std::move(other); }
  Tensor& operator=(const Tensor& other) {
    if (this == &other) return *this;
    shape = other.shape;
    batch = other.batch;
    rebind(storage_.resize(other.data.rows(), other.data.cols()));
    data = other.data;
    return *this;
  }
  Tensor& operator=(Tensor&& other) noexcept {
    if (this == &other) return *this;
    storage_ = std::move(other.storage_);
    shape = std::exchange(other.shape, Shape{});
    batch = std::exchange(other.batch, 0);
    rebind(storage_.view());
    other.rebind(other.storage_.view());
    return *this;
  }

  void resize(Shape s, Index b) {
    shape = s;
    batch = b;
    rebind(storage_.resize(s.pixels() * b, s.channels));
  }
  /// Values allocated (what the memory estimate counts).
  Index capacity() const { return storage_.capacity(); }

 private:
  // A Map's operator= copies values; a new view is placed over the old one instead
  // (Eigen's documented way to point a Map elsewhere).
  void rebind(MatView<T> view) { new (&data) MatView<T>(view.data(), view.rows(), view.cols()); }

  GrowingMat<T> storage_;
};

/// What a layer keeps between forward and backward (per thread), and nested workspaces
/// of composite layers.
template <class T>
struct Workspace {
  std::vector<GrowingMat<T>> buffers;
  std::vector<Tensor<T>> tensors;
  std::vector<Workspace> children;
};

/// One parameter tensor of a layer: its length, the fans He/Xavier use (a bias carries its
/// layer's fan_in, which the torch init draws it on), whether it is a weight (regularized,
/// drawn at init) or not (a bias or a normalization's scale: not regularized, `constant` at
/// init: 0 for biases, 1 for a scale γ, unless the torch init draws a bias), and a factor
/// on the init standard deviation.
struct TensorInfo {
  Index size = 0;
  Index fan_in = 0, fan_out = 0;
  bool weight = true;
  double init_scale = 1.0;
  double constant = 0.0;
};

template <class T>
class Layer {
 public:
  virtual ~Layer() = default;
  virtual std::string name() const = 0;
  /// Shape of one output sample for one input sample of shape `in`.
  virtual Shape output_shape() const = 0;
  virtual Shape input_shape() const = 0;
  /// Parameter tensors in the order they are laid out in the layer's slice.
  virtual std::vector<TensorInfo> tensors() const { return {}; }
  Index parameter_count() const {
    Index n = 0;
    for (const TensorInfo& t : tensors()) n += t.size;
    return n;
  }
  /// out = layer(in). `params` points at the layer's slice.
  virtual void forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
                       Workspace<T>& ws) const = 0;
  /// Given dL/d(out) in `grad_out`, writes dL/d(params) into `grad_params` (the layer's
  /// slice, overwritten) and, when `grad_in` is not null, dL/d(in). `in` and `out` are
  /// the tensors of the matching forward call; `ws` its workspace.
  virtual void backward(const T* params, const Tensor<T>& in, const Tensor<T>& out,
                        const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                        Workspace<T>& ws) const = 0;
  /// Exact FLOPs of forward on `batch` samples, and of backward (with or without the
  /// input gradient).
  virtual double forward_flops(Index batch) const = 0;
  virtual double backward_flops(Index batch, bool input_gradient) const = 0;
};

template <class T>
using LayerPtr = std::unique_ptr<Layer<T>>;

}  // namespace dlsim::models::cnn
