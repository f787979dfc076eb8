// The typed options of the built-in model kinds. Each kind reads and builds its own in
// models/objectives/kinds/<kind>.cpp; the structs are declared here because several kinds
// share one (the linear models, the three convolutional networks) and tests read them
// (ModelSpec::options_as).
#pragma once

#include <string>
#include <vector>

#include "models/objectives/cnn/architectures.hpp"
#include "models/objectives/cnn/conv_net.hpp"
#include "models/objectives/dense_classifier.hpp"
#include "models/objectives/init.hpp"
#include "models/objectives/registry.hpp"

namespace dlsim::models {

/// least-squares, logistic, softmax and mlp: regularizers, biases, initial weights.
struct LinearOptions : ModelOptions {
  Regularization reg;
  bool bias = true;
  InitOptions init;
  Regularization regularization() const override { return reg; }
};

/// least-squares and logistic: one weight per feature (and a bias); each thread gathers
/// a batch of rows (with its labels) into its scratch.
struct LinearModelOptions : LinearOptions {
  std::optional<std::int64_t> parameter_count(const DataShape& data) const override;
  ModelMemory memory(const DataShape& data, std::int64_t batch) const override;
};

struct LeastSquaresOptions final : LinearModelOptions {
  std::unique_ptr<Objective> build(const ModelContext& context) const override;
};

struct LogisticOptions final : LinearModelOptions {
  std::vector<double> positive_classes;  // label values that become +1
  std::unique_ptr<Objective> build(const ModelContext& context) const override;
  void fit_labels(DataSplit& split) const override;
  void check_data(const DataShape& data) const override;
};

/// softmax and mlp (dense_classifier.hpp): the hidden widths (none for softmax).
struct DenseOptions : LinearOptions {
  std::vector<Index> hidden;
  std::optional<std::int64_t> parameter_count(const DataShape& data) const override;
  ModelMemory memory(const DataShape& data, std::int64_t batch) const override;
};

struct SoftmaxOptions final : DenseOptions {
  std::unique_ptr<Objective> build(const ModelContext& context) const override;
  void fit_labels(DataSplit& split) const override;
};

struct MlpOptions final : DenseOptions {
  Activation activation = Activation::relu;
  std::unique_ptr<Objective> build(const ModelContext& context) const override;
  void fit_labels(DataSplit& split) const override;
};

/// lenet5, resnet and cnn (models/objectives/cnn) on images of the shape the data states
/// (else 28x28x1); always with biases.
struct ConvNetOptions final : ModelOptions {
  std::string kind;  // for messages
  cnn::Architecture architecture;
  Regularization reg;
  InitOptions init;
  Precision precision = Precision::single;
  std::unique_ptr<Objective> build(const ModelContext& context) const override;
  Regularization regularization() const override { return reg; }
  void fit_labels(DataSplit& split) const override;
  void check_data(const DataShape& data) const override;
  std::optional<std::int64_t> parameter_count(const DataShape& data) const override;
  ModelMemory memory(const DataShape& data, std::int64_t batch) const override;
};

struct ConsensusOptions final : ModelOptions {
  Index dimension = 10;
  std::unique_ptr<Objective> build(const ModelContext& context) const override;
  std::optional<std::int64_t> parameter_count(const DataShape& data) const override;
  ModelMemory memory(const DataShape& data, std::int64_t batch) const override;
};

struct ProfileOptions final : ModelOptions {
  std::vector<Index> tensor_sizes;  // `parameters` as one tensor, or one per layer
  double flops_per_sample = 0;      // Σ layers' forward + backward FLOPs per sample
  double compute_seconds = 0;       // fixed compute time of one batch gradient
  std::unique_ptr<Objective> build(const ModelContext& context) const override;
  std::optional<std::int64_t> parameter_count(const DataShape& data) const override;
};

}  // namespace dlsim::models
