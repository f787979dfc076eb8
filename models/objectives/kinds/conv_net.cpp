// What lenet5, resnet and cnn share (models/objectives/cnn): building the network on the
// prepared data, images of the shape the data source states (fashion-mnist 1x28x28,
// cifar10 3x32x32, data.image_shape) or else 28x28x1, with class indices as labels.
#include "models/data/labels.hpp"
#include "models/objectives/kinds/options.hpp"

namespace dlsim::models {
namespace conv_net_kinds {

// The network's input: the data's image shape, else the 1×28×28 of Fashion-MNIST.
cnn::Shape conv_net_input(const std::optional<ImageShape>& image) {
  if (!image) return {1, 28, 28};
  return {image->channels, image->height, image->width};
}

// The architecture on images of shape `image`, for `classes` classes when known.
cnn::Architecture on_images(cnn::Architecture a, const std::optional<ImageShape>& image,
                            std::optional<std::int64_t> classes) {
  a.input = conv_net_input(image);
  if (classes) a.classes = int(*classes);
  return a;
}

}  // namespace conv_net_kinds

using conv_net_kinds::on_images;

std::unique_ptr<Objective> ConvNetOptions::build(const ModelContext& c) const {
  cnn::Architecture a = on_images(architecture, c.image, c.data->train.classes);
  const Index features = c.data->train.feature_count();
  if (features != a.input.size()) {
    if (!c.image)
      throw ModelConfigError("kind", "model kind \"" + kind +
                                         "\" takes 28x28x1 images (784 features) unless "
                                         "data.image_shape states another shape; the data has " +
                                         std::to_string(features) + " features");
    throw ModelConfigError(
        "kind", "model kind \"" + kind + "\" takes the data's " + c.image->text() + " images (" +
                    std::to_string(a.input.size()) + " features); the data has " +
                    std::to_string(features) + " features");
  }
  if (a.kind == cnn::Architecture::Kind::custom && a.classes != 10)  // checked for 10 outputs
    throw ModelConfigError("layers", "the network gives 10 outputs; the data has " +
                                         std::to_string(a.classes) + " classes");
  try {
    return std::make_unique<ConvNet>(a, reg, init, precision);
  } catch (const std::invalid_argument& e) {
    throw ModelConfigError("", e.what());
  }
}

void ConvNetOptions::fit_labels(DataSplit& split) const {
  index_classes(split);
}

// The layers against the image shape the scenario states (else 28x28x1): a layer list's
// shapes at model.layers[i].<key>, a named network that does not fit at model.kind.
void ConvNetOptions::check_data(const DataShape& data) const {
  const cnn::Architecture a = on_images(architecture, data.image, std::nullopt);
  const std::string images =
      data.image ? "the data's images (" + data.image_text + ")" : "the default 28x28x1 images";
  if (a.kind == cnn::Architecture::Kind::custom) {
    try {
      cnn::infer_layer_shapes(a.layers, {a.input.channels, a.input.height, a.input.width}, 10);
    } catch (const cnn::LayerListError& e) {
      std::string where = "layers";
      if (e.index() >= 0) where += "[" + std::to_string(e.index()) + "]";
      if (!e.key().empty()) where += "." + e.key();
      throw ModelConfigError(where, e.what());
    }
    return;
  }
  try {
    cnn::build_network<float>(a);
  } catch (const std::invalid_argument& e) {
    throw ModelConfigError("kind", kind + " does not fit " + images + ": " + e.what());
  }
}

std::optional<std::int64_t> ConvNetOptions::parameter_count(const DataShape& data) const {
  try {
    return cnn::build_network<double>(on_images(architecture, data.image, data.classes))
        .parameter_count();
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // build() reports it
  }
}

ModelMemory ConvNetOptions::memory(const DataShape& data, std::int64_t batch) const {
  try {
    return {.thread_bytes = ConvNet::thread_bytes(on_images(architecture, data.image, data.classes),
                                                  precision, batch)};
  } catch (const std::invalid_argument&) {
    return {};
  }
}

}  // namespace dlsim::models
