// Parameter counts and memory of the linear kinds (least-squares, logistic) and the dense
// classifiers (softmax, mlp), whose options structs several kinds share
// (kinds/options.hpp); for load-time checks and the memory estimate.
#include "models/objectives/counts.hpp"
#include "models/objectives/kinds/options.hpp"

namespace dlsim::models {

std::optional<std::int64_t> LinearModelOptions::parameter_count(const DataShape& data) const {
  if (!data.features) return std::nullopt;
  return saturating_add(*data.features, bias ? 1 : 0);
}

// least_squares.cpp and logistic.cpp gather a batch (rows and labels) per thread.
ModelMemory LinearModelOptions::memory(const DataShape& data, std::int64_t batch) const {
  return {.thread_bytes = 8 * double(batch) * (double(data.features.value_or(0)) + 2)};
}

std::optional<std::int64_t> DenseOptions::parameter_count(const DataShape& data) const {
  if (!data.features || !data.classes) return std::nullopt;
  return DenseClassifier::parameter_count(*data.features, hidden, *data.classes, bias);
}

ModelMemory DenseOptions::memory(const DataShape& data, std::int64_t batch) const {
  return {.thread_bytes = DenseClassifier::thread_bytes(data.features.value_or(0), hidden,
                                                        data.classes.value_or(2), batch),
          .coded_rows_widened = double(DenseClassifier::coded_rows_widened())};
}

}  // namespace dlsim::models
