// The networks dlsim builds by name (scenario `model.kind`), for images of shape `input`
// (Fashion-MNIST 1 × 28 × 28 by default, CIFAR-10 3 × 32 × 32, ...) and C classes:
//
// lenet5 (LeCun et al. 1998, with max or average pooling and relu or tanh):
//   conv 6@5×5 pad 2 → act → pool 2×2 → conv 16@5×5 → act → pool 2×2 → dense 120 → act →
//   dense 84 → act → dense C.   Parameters (C = 10): 156 + 2,416 + 48,120 + 10,164 + 850
//   = 61,706, i.e. (25+1)·6 + (150+1)·16 + (400+1)·120 + (120+1)·84 + (84+1)·C.
//
// resnet (He et al. 2016 §4.2, CIFAR variant, depth = 6n + 2), channels c1 = round(16w),
// c2 = round(32w), c3 = round(64w) for the width multiplier w:
//   conv 3×3 c1 → [GN] → relu → n blocks at c1 (H×W) → n blocks at c2, the first with
//   stride 2 (⌈H/2⌉×⌈W/2⌉) → n blocks at c3, the first with stride 2 → global average
//   pool → dense C. Blocks are residual_block.hpp (two 3×3 convolutions); the two
//   downsampling blocks' shortcut is `shortcut`: a 1×1 projection ("option B", the
//   default) or zero padding with subsampling ("option A", parameter-free, the paper's
//   choice for CIFAR). Normalization: none (the default), or group normalization with
//   `groups` groups after every convolution, before its ReLU (group_norm.hpp, where He et
//   al. have batch normalization; the projection is normalized too).
//   Parameters, Cin input channels, without normalization, option B:
//   (9Cin+1)c1 + n·2(9c1²+c1) + [(9c1c2+c2) + (9c2²+c2) + (c1c2+c2)]
//   + (n−1)·2(9c2²+c2) + [same with c2 → c3] + (n−1)·2(9c3²+c3) + (c3+1)·C;
//   option A drops the two (c·c'+c') projection terms; group normalization adds 2c per
//   convolution of c output channels (γ, β).
//   ResNet-20 (n = 3), option A, 3×32×32, C = 10, no normalization: 269,034 parameters
//   (tests/resnet_cifar_test.cpp counts them by hand; He et al.: "0.27M").
//
// custom (scenario `model.kind` cnn): the layers of `layers` in order (layer_list.hpp),
// checked by infer_layer_shapes first.
#pragma once

#include <vector>

#include "models/objectives/cnn/layer_list.hpp"

#include "models/objectives/cnn/network.hpp"
#include "models/objectives/cnn/pool2d.hpp"
#include "models/objectives/cnn/residual_block.hpp"
#include "models/objectives/dense_classifier.hpp"

namespace dlsim::models::cnn {

struct Architecture {
  enum class Kind { lenet5, resnet, custom } kind = Kind::lenet5;
  Activation activation = Activation::relu;  // lenet5
  PoolKind pooling = PoolKind::max;          // lenet5
  int depth = 20;                            // resnet: 6n + 2
  double width = 1.0;                        // resnet: channel multiplier
  Shortcut shortcut = Shortcut::projection;  // resnet: of the downsampling blocks
  Index groups = 0;                          // resnet: group normalization; 0: none
  std::vector<LayerSpec> layers;             // custom
  Shape input{1, 28, 28};
  int classes = 10;
};

/// Throws std::invalid_argument for impossible architectures (depth not 6n + 2 ≥ 8,
/// width giving 0 channels, inputs the layers do not fit; LayerListError for a custom
/// list).
template <class T>
Network<T> build_network(const Architecture& architecture);

/// Channels of resnet stage s (0, 1, 2): max(1, round(16·2^s·width)).
Index resnet_channels(double width, int stage);

}  // namespace dlsim::models::cnn
