// What lenet5, resnet and cnn share (models/objectives/cnn): building the network on the
// prepared data, 28x28x1 images with class indices as labels.
#include "models/data/labels.hpp"
#include "models/objectives/kinds/options.hpp"

namespace dlsim::models {

std::unique_ptr<Objective> ConvNetOptions::build(const ModelContext& c) const {
  const Index features = c.data->train.feature_count();
  if (features != 784)
    throw ModelConfigError("kind", "model kind \"" + kind +
                                       "\" takes 28x28x1 images (784 features); the data has " +
                                       std::to_string(features) + " features");
  cnn::Architecture a = architecture;
  a.classes = c.data->train.classes;
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

}  // namespace dlsim::models
