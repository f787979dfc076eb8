// build_network: LeNet-5 and CIFAR-style ResNets as layer lists (architectures.hpp).
#include "models/objectives/cnn/architectures.hpp"

#include <cmath>
#include <stdexcept>

#include "models/objectives/cnn/activation.hpp"
#include "models/objectives/cnn/conv2d.hpp"
#include "models/objectives/cnn/dense.hpp"
#include "models/objectives/cnn/global_avg_pool.hpp"
#include "models/objectives/cnn/group_norm.hpp"
#include "models/objectives/cnn/residual_block.hpp"

namespace dlsim::models::cnn {

Index resnet_channels(double width, int stage) {
  return std::max<Index>(1, Index(std::lround(16.0 * double(1 << stage) * width)));
}

namespace {

template <class T>
void lenet5(Network<T>& net, const Architecture& a) {
  const auto act = [&] {
    net.add(std::make_unique<ActivationLayer<T>>(net.output_shape(), a.activation));
  };
  net.add(
      std::make_unique<Conv2d<T>>(net.output_shape(), ConvOptions{a.input.channels, 6, 5, 1, 2}));
  act();
  net.add(std::make_unique<Pool2d<T>>(net.output_shape(), a.pooling));
  net.add(std::make_unique<Conv2d<T>>(net.output_shape(), ConvOptions{6, 16, 5, 1, 0}));
  act();
  net.add(std::make_unique<Pool2d<T>>(net.output_shape(), a.pooling));
  net.add(std::make_unique<Dense<T>>(net.output_shape(), 120));
  act();
  net.add(std::make_unique<Dense<T>>(net.output_shape(), 84));
  act();
  net.add(std::make_unique<Dense<T>>(net.output_shape(), a.classes));
}

template <class T>
void resnet(Network<T>& net, const Architecture& a) {
  if (a.depth < 8 || (a.depth - 2) % 6 != 0)
    throw std::invalid_argument(
        "resnet depth must be 6n + 2 with n >= 1 (8, 14, 20, 32, ...), got " +
        std::to_string(a.depth));
  const int blocks = (a.depth - 2) / 6;
  // Normalized branches need no down-scaling at initialization (residual_block.hpp).
  const double branch_scale = a.groups > 0 ? 1.0 : 1.0 / std::sqrt(double(3 * blocks));
  net.add(std::make_unique<Conv2d<T>>(
      net.output_shape(), ConvOptions{a.input.channels, resnet_channels(a.width, 0), 3, 1, 1}));
  if (a.groups > 0) net.add(std::make_unique<GroupNorm<T>>(net.output_shape(), a.groups));
  net.add(std::make_unique<ActivationLayer<T>>(net.output_shape(), Activation::relu));
  const BlockOptions options{.shortcut = a.shortcut, .groups = a.groups};
  for (int stage = 0; stage < 3; ++stage)
    for (int block = 0; block < blocks; ++block) {
      const Index stride = stage > 0 && block == 0 ? 2 : 1;
      net.add(std::make_unique<ResidualBlock<T>>(
          net.output_shape(), resnet_channels(a.width, stage), stride, branch_scale, options));
    }
  net.add(std::make_unique<GlobalAvgPool<T>>(net.output_shape()));
  net.add(std::make_unique<Dense<T>>(net.output_shape(), a.classes));
}

template <class T>
void custom(Network<T>& net, const Architecture& a) {
  infer_layer_shapes(a.layers, {a.input.channels, a.input.height, a.input.width}, a.classes);
  using Type = LayerSpec::Type;
  for (const LayerSpec& l : a.layers) {
    const Shape in = net.output_shape();
    switch (l.type) {
      case Type::conv:
        net.add(std::make_unique<Conv2d<T>>(
            in, ConvOptions{in.channels, l.channels, l.kernel, l.stride, l.padding}));
        break;
      case Type::relu:
        net.add(std::make_unique<ActivationLayer<T>>(in, Activation::relu));
        break;
      case Type::tanh:
        net.add(std::make_unique<ActivationLayer<T>>(in, Activation::tanh));
        break;
      case Type::maxpool:
        net.add(std::make_unique<Pool2d<T>>(in, PoolKind::max));
        break;
      case Type::avgpool:
        net.add(std::make_unique<Pool2d<T>>(in, PoolKind::average));
        break;
      case Type::dense:
        net.add(std::make_unique<Dense<T>>(in, l.units));
        break;
      case Type::global_avg_pool:
        net.add(std::make_unique<GlobalAvgPool<T>>(in));
        break;
      case Type::group_norm:
        net.add(std::make_unique<GroupNorm<T>>(in, l.groups));
        break;
    }
  }
}

}  // namespace

template <class T>
Network<T> build_network(const Architecture& architecture) {
  if (architecture.classes < 2)
    throw std::invalid_argument("convolutional network: needs at least 2 classes");
  Network<T> net(architecture.input);
  if (architecture.kind == Architecture::Kind::lenet5)
    lenet5(net, architecture);
  else if (architecture.kind == Architecture::Kind::custom)
    custom(net, architecture);
  else
    resnet(net, architecture);
  return net;
}

template Network<float> build_network<float>(const Architecture&);
template Network<double> build_network<double>(const Architecture&);

}  // namespace dlsim::models::cnn
