// `model.kind` cnn: a convolutional network described by a list of layers, with the
// shape inference that checks the list before anything is built.
//
//   conv     channels, kernel, stride, padding   C×H×W → channels × Ho × Wo,
//            Ho = (H + 2·padding − kernel)/stride + 1 (floor), likewise Wo; needs
//            kernel ≤ H + 2·padding (and W), padding < kernel.
//   relu, tanh                                   shape unchanged.
//   maxpool, avgpool  size (only 2)              C×H×W → C × H/2 × W/2; H and W even.
//   dense    units                               flattens C·H·W → units × 1 × 1.
//   global_avg_pool                              C×H×W → C × 1 × 1.
//   group_norm  groups                           shape unchanged; groups divides C
//            (group_norm.hpp: 2C parameters, γ and β).
// The network must end in `classes` outputs (shape classes × 1 × 1). Layers are the
// ones lenet5 and resnet use (conv2d, pool2d, activation, dense, global_avg_pool), so a
// list equal to LeNet-5 is LeNet-5: same parameter layout, FLOPs and initialization.
// This header is light (no Eigen) so that the typed scenario can hold a LayerSpec list.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dlsim::models::cnn {

struct LayerSpec {
  enum class Type { conv, relu, tanh, maxpool, avgpool, dense, global_avg_pool, group_norm };
  Type type = Type::relu;
  std::int64_t channels = 0, kernel = 0, stride = 1, padding = 0;  // conv
  std::int64_t size = 2;                                           // maxpool, avgpool
  std::int64_t units = 0;                                          // dense
  std::int64_t groups = 1;                                         // group_norm
};

/// A layer list that cannot be built: `index` is the offending layer (−1: the whole
/// list), `key` the offending key of that layer ("" when the layer as a whole).
class LayerListError : public std::invalid_argument {
 public:
  LayerListError(std::int64_t index, std::string key, const std::string& what)
      : std::invalid_argument(what), index_(index), key_(std::move(key)) {}
  std::int64_t index() const { return index_; }
  const std::string& key() const { return key_; }

 private:
  std::int64_t index_;
  std::string key_;
};

struct LayerListShape {
  std::int64_t channels = 1, height = 1, width = 1;
};

/// Parses a layer type name ("conv", "maxpool", ...); throws std::invalid_argument.
LayerSpec::Type layer_type(const std::string& name);

/// Infers the shape after every layer of `layers` on `input` and returns the output
/// shape; throws LayerListError for an empty list, a layer that does not fit its input,
/// an output that is not `classes` × 1 × 1, or more than `max_parameters` parameters.
LayerListShape infer_layer_shapes(const std::vector<LayerSpec>& layers, LayerListShape input,
                                  std::int64_t classes, std::int64_t max_parameters = 100'000'000);

}  // namespace dlsim::models::cnn
