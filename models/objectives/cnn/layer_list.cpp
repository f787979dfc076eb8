// Shape inference of a `cnn` layer list (layer_list.hpp).
#include "models/objectives/cnn/layer_list.hpp"

namespace dlsim::models::cnn {

namespace {

std::string shape_text(const LayerListShape& s) {
  return std::to_string(s.channels) + "x" + std::to_string(s.height) + "x" +
         std::to_string(s.width);
}

// The output shape of one layer; adds its parameter count to `parameters`.
LayerListShape infer_one(const LayerSpec& l, std::int64_t i, const LayerListShape& in,
                         std::int64_t& parameters) {
  using Type = LayerSpec::Type;
  switch (l.type) {
    case Type::conv: {
      if (l.channels < 1) throw LayerListError(i, "channels", "must be >= 1");
      if (l.kernel < 1) throw LayerListError(i, "kernel", "must be >= 1");
      if (l.stride < 1) throw LayerListError(i, "stride", "must be >= 1");
      if (l.padding < 0 || l.padding >= l.kernel)
        throw LayerListError(i, "padding",
                             "must be in [0, kernel - 1] = [0, " + std::to_string(l.kernel - 1) +
                                 "], got " + std::to_string(l.padding));
      const std::int64_t h = in.height + 2 * l.padding, w = in.width + 2 * l.padding;
      if (l.kernel > h || l.kernel > w)
        throw LayerListError(i, "kernel",
                             std::to_string(l.kernel) + "x" + std::to_string(l.kernel) +
                                 " does not fit the " + shape_text(in) + " input (padded to " +
                                 std::to_string(h) + "x" + std::to_string(w) + ")");
      parameters += (in.channels * l.kernel * l.kernel + 1) * l.channels;
      return {l.channels, (h - l.kernel) / l.stride + 1, (w - l.kernel) / l.stride + 1};
    }
    case Type::relu:
    case Type::tanh:
      return in;
    case Type::maxpool:
    case Type::avgpool:
      if (l.size != 2)
        throw LayerListError(
            i, "size",
            "only 2 is supported (2x2 windows, stride 2), got " + std::to_string(l.size));
      if (in.height < 2 || in.width < 2 || in.height % 2 != 0 || in.width % 2 != 0)
        throw LayerListError(i, "",
                             "2x2 pooling needs an even height and width of at least 2, the "
                             "input is " +
                                 shape_text(in));
      return {in.channels, in.height / 2, in.width / 2};
    case Type::dense:
      if (l.units < 1) throw LayerListError(i, "units", "must be >= 1");
      parameters += (in.channels * in.height * in.width + 1) * l.units;
      return {l.units, 1, 1};
    case Type::global_avg_pool:
      return {in.channels, 1, 1};
    case Type::group_norm:
      if (l.groups < 1 || in.channels % l.groups != 0)
        throw LayerListError(i, "groups",
                             std::to_string(l.groups) + " groups do not divide the " +
                                 std::to_string(in.channels) + " channels of the " +
                                 shape_text(in) + " input");
      parameters += 2 * in.channels;
      return in;
  }
  throw LayerListError(i, "type", "unknown layer type");
}

}  // namespace

LayerSpec::Type layer_type(const std::string& name) {
  using Type = LayerSpec::Type;
  if (name == "conv") return Type::conv;
  if (name == "relu") return Type::relu;
  if (name == "tanh") return Type::tanh;
  if (name == "maxpool") return Type::maxpool;
  if (name == "avgpool") return Type::avgpool;
  if (name == "dense") return Type::dense;
  if (name == "global_avg_pool") return Type::global_avg_pool;
  if (name == "group_norm") return Type::group_norm;
  throw std::invalid_argument("unknown layer type \"" + name + "\"");
}

LayerListShape infer_layer_shapes(const std::vector<LayerSpec>& layers, LayerListShape input,
                                  std::int64_t classes, std::int64_t max_parameters) {
  if (layers.empty()) throw LayerListError(-1, "", "must not be empty");
  LayerListShape shape = input;
  std::int64_t parameters = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    shape = infer_one(layers[i], std::int64_t(i), shape, parameters);
    if (parameters > max_parameters)
      throw LayerListError(std::int64_t(i), "",
                           "the network has more than " + std::to_string(max_parameters) +
                               " parameters up to this layer");
  }
  if (shape.channels != classes || shape.height != 1 || shape.width != 1) {
    const std::int64_t last = std::int64_t(layers.size()) - 1;
    const bool dense = layers.back().type == LayerSpec::Type::dense;
    throw LayerListError(last, dense ? "units" : "",
                         "the last layer must give " + std::to_string(classes) +
                             " outputs (one per class, shape " + std::to_string(classes) +
                             "x1x1), got " + shape_text(shape));
  }
  return shape;
}

}  // namespace dlsim::models::cnn
