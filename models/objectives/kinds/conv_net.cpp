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

std::optional<std::int64_t> ConvNetOptions::parameter_count(const DataShape& data) const {
  cnn::Architecture a = architecture;
  if (data.classes) a.classes = int(*data.classes);
  try {
    return cnn::build_network<double>(a).parameter_count();
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // build() reports it
  }
}

ModelMemory ConvNetOptions::memory(const DataShape& data, std::int64_t batch) const {
  cnn::Architecture a = architecture;
  if (data.classes) a.classes = int(*data.classes);
  try {
    return {.thread_bytes = ConvNet::thread_bytes(a, precision, batch)};
  } catch (const std::invalid_argument&) {
    return {};
  }
}

}  // namespace dlsim::models
