// 2-D convolution (cross-correlation) of a batch, lowered to one GEMM by im2col
// (Chellapilla, Puri, Simard 2006: "High performance convolutional neural networks for
// document processing"):
//
//   cols[(b, oy, ox), (c, ky, kx)] = X_pad[c, b, s·oy + ky, s·ox + kx]
//   Y = cols · W + 1 bᵀ                 W: (Cin·k·k) × Cout, column-major, then b (Cout)
//   ∇W = colsᵀ · G,  ∇b = Gᵀ 1,  ∇cols = G · Wᵀ, scattered back (col2im, adding
//   overlapping taps) into the padded input gradient and cropped.
//
// Output size: Ho = (H + 2p − k)/s + 1 (floor), likewise Wo. Every (sample, channel, tap)
// is one strided 2-D block copy (Eigen Map with inner stride s and outer stride s·Wp), so
// there is no loop over pixels. FLOPs, N = Ho·Wo·B output rows, K = Cin·k·k:
// forward 2·N·K·Cout + N·Cout; backward 2·N·K·Cout (∇W) + N·Cout (∇b), plus, with the
// input gradient, 2·N·K·Cout (∇cols) + N·K (col2im adds).
#pragma once

#include "models/objectives/cnn/layer.hpp"

namespace dlsim::models::cnn {

struct ConvOptions {
  Index in_channels = 1, out_channels = 1;
  Index kernel = 3, stride = 1, padding = 0;
};

template <class T>
class Conv2d final : public Layer<T> {
 public:
  /// Throws std::invalid_argument when the kernel does not fit the padded input.
  Conv2d(Shape input, ConvOptions options);

  std::string name() const override { return "conv2d"; }
  Shape input_shape() const override { return input_; }
  Shape output_shape() const override { return output_; }
  std::vector<TensorInfo> tensors() const override;
  void forward(const T* params, const Tensor<T>& in, Tensor<T>& out,
               Workspace<T>& ws) const override;
  void backward(const T* params, const Tensor<T>& in, const Tensor<T>& out,
                const Tensor<T>& grad_out, Tensor<T>* grad_in, T* grad_params,
                Workspace<T>& ws) const override;
  double forward_flops(Index batch) const override;
  double backward_flops(Index batch, bool input_gradient) const override;

  const ConvOptions& options() const { return options_; }

 private:
  Index taps() const { return options_.in_channels * options_.kernel * options_.kernel; }

  Shape input_, output_;
  ConvOptions options_;
};

extern template class Conv2d<float>;
extern template class Conv2d<double>;

}  // namespace dlsim::models::cnn
