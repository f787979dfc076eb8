// Conv2d: im2col / col2im as strided block copies, the products as GEMMs over the batch
// (formulas in conv2d.hpp).
#include "models/objectives/cnn/conv2d.hpp"

#include <stdexcept>
#include <utility>

namespace dlsim::models::cnn {

namespace {

using Strided = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;

// Workspace slots.
constexpr std::size_t kCols = 0;      // im2col matrix (kept for ∇W)
constexpr std::size_t kPadded = 1;    // zero-padded input (or its gradient)
constexpr std::size_t kGradCols = 2;  // ∇cols

}  // namespace

template <class T>
Conv2d<T>::Conv2d(Shape input, ConvOptions options) : input_(input), options_(options) {
  const auto& o = options_;
  if (o.in_channels != input.channels)
    throw std::invalid_argument("conv2d: input has " + std::to_string(input.channels) +
                                " channels, layer expects " + std::to_string(o.in_channels));
  if (o.kernel < 1 || o.stride < 1 || o.padding < 0 || o.out_channels < 1)
    throw std::invalid_argument("conv2d: kernel, stride, out_channels must be >= 1, padding >= 0");
  const Index hp = input.height + 2 * o.padding, wp = input.width + 2 * o.padding;
  if (o.kernel > hp || o.kernel > wp)
    throw std::invalid_argument("conv2d: kernel " + std::to_string(o.kernel) +
                                " larger than the padded input " + std::to_string(hp) + "x" +
                                std::to_string(wp));
  output_ = {o.out_channels, (hp - o.kernel) / o.stride + 1, (wp - o.kernel) / o.stride + 1};
}

template <class T>
std::vector<TensorInfo> Conv2d<T>::tensors() const {
  const Index k2 = options_.kernel * options_.kernel;
  return {{taps() * options_.out_channels, taps(), options_.out_channels * k2, true},
          {options_.out_channels, taps(), 0, false}};
}

template <class T>
void Conv2d<T>::forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
                        Workspace<T>& ws) const {
  const auto& o = options_;
  const Index batch = in.batch, k = o.kernel, s = o.stride, p = o.padding;
  const Index h = input_.height, w = input_.width, hp = h + 2 * p, wp = w + 2 * p;
  const Index ho = output_.height, wo = output_.width;
  ws.buffers.resize(3);
  // Zero-padded copy of the input: (Cin·B) images of wp × hp (x fastest).
  const T* source = in.data.data();
  if (p > 0) {
    auto padded = ws.buffers[kPadded].resize(wp * hp, o.in_channels * batch);
    padded.setZero();
    for (Index q = 0; q < o.in_channels * batch; ++q)
      Eigen::Map<Mat<T>>(padded.col(q).data(), wp, hp).block(p, p, w, h) =
          Eigen::Map<const Mat<T>>(source + q * h * w, w, h);
    source = padded.data();
  }
  // im2col: column (c, ky, kx), rows of sample b = the strided wo × ho window.
  auto cols = ws.buffers[kCols].resize(ho * wo * batch, taps());
  for (Index c = 0; c < o.in_channels; ++c)
    for (Index ky = 0; ky < k; ++ky)
      for (Index kx = 0; kx < k; ++kx) {
        T* column = cols.col((c * k + ky) * k + kx).data();
        for (Index b = 0; b < batch; ++b)
          Eigen::Map<Mat<T>>(column + b * ho * wo, wo, ho) = Eigen::Map<const Mat<T>, 0, Strided>(
              source + (c * batch + b) * hp * wp + ky * wp + kx, wo, ho, Strided(s * wp, s));
      }
  const Eigen::Map<const Mat<T>> weights(params, taps(), o.out_channels);
  const Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>> bias(params + weights.size(),
                                                                   o.out_channels);
  out.resize(output_, batch);
  out.data.noalias() = cols * weights;
  out.data.rowwise() += bias;
}

template <class T>
void Conv2d<T>::backward(const T* params, const Tensor<T>& in, const Tensor<T>& /*out*/,
                         const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                         Workspace<T>& ws) const {
  const auto& o = options_;
  const Index batch = in.batch, k = o.kernel, s = o.stride, p = o.padding;
  const Index h = input_.height, w = input_.width, hp = h + 2 * p, wp = w + 2 * p;
  const Index ho = output_.height, wo = output_.width;
  const auto cols = std::as_const(ws.buffers[kCols]).view();
  Eigen::Map<Mat<T>> grad_weights(grad_params, taps(), o.out_channels);
  grad_weights.noalias() = cols.transpose() * grad_out.data;
  Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>(grad_params + grad_weights.size(),
                                                  o.out_channels) = grad_out.data.colwise().sum();
  if (!grad_in) return;
  const Eigen::Map<const Mat<T>> weights(params, taps(), o.out_channels);
  auto grad_cols = ws.buffers[kGradCols].resize(grad_out.data.rows(), taps());
  grad_cols.noalias() = grad_out.data * weights.transpose();
  // col2im: add every tap's window back into the (padded) input gradient.
  grad_in->resize(input_, batch);
  auto target = p > 0 ? ws.buffers[kPadded].resize(wp * hp, o.in_channels * batch) : grad_in->data;
  target.setZero();
  T* dest = target.data();
  for (Index c = 0; c < o.in_channels; ++c)
    for (Index ky = 0; ky < k; ++ky)
      for (Index kx = 0; kx < k; ++kx) {
        const T* column = grad_cols.col((c * k + ky) * k + kx).data();
        for (Index b = 0; b < batch; ++b)
          Eigen::Map<Mat<T>, 0, Strided>(dest + (c * batch + b) * hp * wp + ky * wp + kx, wo, ho,
                                         Strided(s * wp, s)) +=
              Eigen::Map<const Mat<T>>(column + b * ho * wo, wo, ho);
      }
  if (p > 0) {
    T* result = grad_in->data.data();
    for (Index q = 0; q < o.in_channels * batch; ++q)
      Eigen::Map<Mat<T>>(result + q * h * w, w, h) =
          Eigen::Map<const Mat<T>>(target.col(q).data(), wp, hp).block(p, p, w, h);
  }
}

template <class T>
double Conv2d<T>::forward_flops(Index batch) const {
  const double n = double(output_.pixels() * batch), cout = double(options_.out_channels);
  return 2 * n * double(taps()) * cout + n * cout;
}

template <class T>
double Conv2d<T>::backward_flops(Index batch, bool input_gradient) const {
  const double n = double(output_.pixels() * batch), cout = double(options_.out_channels);
  const double kk = double(taps());
  double flops = 2 * n * kk * cout + n * cout;
  if (input_gradient) flops += 2 * n * kk * cout + n * kk;
  return flops;
}

template class Conv2d<float>;
template class Conv2d<double>;

}  // namespace dlsim::models::cnn
