// prepare(): data, preprocessing, label fitting, partition and objective, with every
// problem reported as an InputError that names the scenario key it comes from (a bad
// data file: the key of its path, and "file:line: what" in the message).
// Order: load → test_fraction split → train_samples subsample → normalize (training
// statistics) → labels fitted to the model → partition → eval_samples subsample.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/compress/factory.hpp"
#include "models/data/labels.hpp"
#include "models/data/sources.hpp"
#include "models/objectives/cnn/conv_net.hpp"
#include "models/objectives/consensus.hpp"
#include "models/objectives/least_squares.hpp"
#include "models/objectives/logistic.hpp"
#include "models/objectives/mlp.hpp"
#include "models/objectives/profile.hpp"
#include "models/objectives/softmax.hpp"
#include "sim/algorithms/algorithms.hpp"
#include "sim/engine/rng.hpp"
#include "sim/run/memory_guard.hpp"
#include "sim/run/runner.hpp"
#include "sim/runtime/training.hpp"
#include "sim/scenario/input_error.hpp"

namespace dlsim::sim {

namespace {

// Runs `load`, turning a DataError into an InputError for `key`.
template <class Load>
auto or_input_error(const std::string& key, Load&& load) {
  try {
    return load();
  } catch (const models::DataError& e) {
    throw InputError(key, e.what());
  }
}

void check_same_features(const models::DataSplit& split, const DataSpec& d) {
  if (split.test->feature_count() != split.train.feature_count())
    throw InputError("data.test_path",
                     fmt::format("{} has {} features but {} has {}", d.test_path,
                                 split.test->feature_count(), d.path, split.train.feature_count()));
}

models::DataSplit load_source(const Scenario& s) {
  const DataSpec& d = s.data;
  models::DataSplit split;
  if (d.source == "synthetic-regression") {
    auto rng = make_rng(s.seed, "data");
    split.train = models::synthetic_regression({d.samples, d.features, d.noise, d.condition}, rng);
  } else if (d.source == "synthetic-classification") {
    auto rng = make_rng(s.seed, "data");
    split.train = models::synthetic_classification(
        {d.samples, d.features, int(d.classes), d.separation}, rng);
  } else if (d.source == "csv") {
    split.train =
        or_input_error("data.path", [&] { return models::load_csv(d.path, d.label_column); });
    if (!d.test_path.empty()) {
      split.test = or_input_error("data.test_path",
                                  [&] { return models::load_csv(d.test_path, d.label_column); });
      check_same_features(split, d);
    }
  } else if (d.source == "libsvm") {
    const auto train = or_input_error("data.path", [&] { return models::parse_libsvm(d.path); });
    std::optional<models::LibsvmFile> test;
    if (!d.test_path.empty())
      test = or_input_error("data.test_path", [&] { return models::parse_libsvm(d.test_path); });
    // Both files share the feature count of the wider one (trailing zero features are
    // simply not written in libsvm files).
    const models::Index features = std::max(train.max_feature, test ? test->max_feature : 0);
    split.train = models::densify(train, features);
    if (test) split.test = models::densify(*test, features);
  } else if (d.source == "fashion-mnist") {
    split = or_input_error("data.path", [&] { return models::load_fashion_mnist(d.path); });
  } else {
    throw InputError("data.source", "unsupported source \"" + d.source + "\"");
  }
  return split;
}

// Labels as the model needs them: ±1 for logistic, class indices for softmax and mlp.
void fit_labels(const Scenario& s, models::DataSplit& split) {
  const std::string& kind = s.model.kind;
  try {
    if (kind == "logistic") models::binarize_labels(split, s.model.positive_classes);
    if (kind == "softmax" || kind == "mlp" || kind == "lenet5" || kind == "resnet" || kind == "cnn")
      models::index_classes(split);
  } catch (const std::invalid_argument& e) {
    const std::string key = kind == "logistic" && !s.model.positive_classes.empty()
                                ? "model.positive_classes"
                            : s.data.path.empty() ? "data.source"
                                                  : "data.path";
    throw InputError(key, fmt::format("model kind \"{}\": {}", kind, e.what()));
  }
}

models::DataSplit load_data(const Scenario& s) {
  const DataSpec& d = s.data;
  models::DataSplit split = load_source(s);
  if (d.test_fraction > 0) {
    if (split.test)
      throw InputError("data.test_fraction",
                       "cannot split off a test set: the data already has a test set");
    auto rng = make_rng(s.seed, "test-split");
    models::split_test_fraction(split, d.test_fraction, rng);
  }
  if (d.train_samples) {
    auto rng = make_rng(s.seed, "train-samples");
    models::subsample_train(split, *d.train_samples, rng);
  }
  models::normalize(split, d.normalize);
  fit_labels(s, split);
  return split;
}

models::Shards make_partition(const Scenario& s, const models::Dataset& train) {
  const PartitionSpec& p = s.data.partition;
  const int n = int(s.workers);
  auto rng = make_rng(s.seed, "partition");
  try {
    if (p.kind == "dirichlet") return models::partition_dirichlet(train.labels, n, p.alpha, rng);
    if (p.kind == "shards")
      return models::partition_shards(train.labels, n, int(p.per_worker), rng);
    if (p.kind == "sorted") return models::partition_sorted(train.labels, n);
    return models::partition_iid(train.size(), n, rng);
  } catch (const std::invalid_argument& e) {
    throw InputError(p.kind == "shards" ? "data.partition.per_worker" : "data.partition", e.what());
  }
}

models::InitOptions init_options(const InitSpec& spec) {
  models::InitOptions init;
  using Kind = models::InitOptions::Kind;
  init.kind = spec.kind == "normal"   ? Kind::normal
              : spec.kind == "he"     ? Kind::he
              : spec.kind == "xavier" ? Kind::xavier
                                      : Kind::zeros;
  init.std = spec.std;
  return init;
}

// lenet5, resnet and cnn (models/objectives/cnn) on 28x28x1 images.
std::unique_ptr<models::Objective> make_conv_net(const Scenario& s, const models::DataSplit& data,
                                                 const models::InitOptions& init) {
  const ModelSpec& m = s.model;
  const models::Index features = data.train.feature_count();
  if (features != 784)
    throw InputError("model.kind", fmt::format("model kind \"{}\" takes 28x28x1 images (784 "
                                               "features); the data has {} features",
                                               m.kind, features));
  models::cnn::Architecture a;
  a.kind = m.kind == "lenet5" ? models::cnn::Architecture::Kind::lenet5
           : m.kind == "cnn"  ? models::cnn::Architecture::Kind::custom
                              : models::cnn::Architecture::Kind::resnet;
  a.layers = m.layers;
  a.activation = m.activation == "tanh" ? models::Activation::tanh : models::Activation::relu;
  a.pooling = m.pooling == "average" ? models::cnn::PoolKind::average : models::cnn::PoolKind::max;
  a.depth = int(m.depth);
  a.width = m.width;
  a.classes = data.train.classes;
  if (m.kind == "cnn" && a.classes != 10)  // the layer list was checked for 10 outputs
    throw InputError("model.layers", fmt::format("the network gives 10 outputs; the data has {} "
                                                 "classes",
                                                 a.classes));
  const auto precision =
      m.precision == "double" ? models::Precision::double_ : models::Precision::single;
  try {
    return std::make_unique<models::ConvNet>(a, models::Regularization{m.l2, m.l1}, init,
                                             precision);
  } catch (const std::invalid_argument& e) {
    throw InputError("model", e.what());
  }
}

std::unique_ptr<models::Objective> make_objective(const Scenario& s,
                                                  const models::DataSplit* data) {
  const ModelSpec& m = s.model;
  if (m.kind == "profile")
    return std::make_unique<models::Profile>(m.parameters, m.compute_time.seconds());
  if (m.kind == "consensus") {
    auto rng = make_rng(s.seed, "consensus-starts");
    return std::make_unique<models::Consensus>(m.dimension, int(s.workers), rng);
  }
  const models::Index features = data->train.feature_count();
  const models::Regularization reg{m.l2, m.l1};
  const models::InitOptions init = init_options(m.init);
  if (m.kind == "least-squares")
    return std::make_unique<models::LeastSquares>(features, reg, m.bias, init);
  if (m.kind == "logistic") return std::make_unique<models::Logistic>(features, reg, m.bias, init);
  if (m.kind == "softmax")
    return std::make_unique<models::Softmax>(features, data->train.classes, reg, m.bias, init);
  if (m.kind == "mlp") {
    const std::vector<models::Index> hidden(m.hidden.begin(), m.hidden.end());
    const auto activation =
        m.activation == "tanh" ? models::Activation::tanh : models::Activation::relu;
    return std::make_unique<models::Mlp>(features, hidden, data->train.classes, activation, reg,
                                         m.bias, init);
  }
  if (m.kind == "lenet5" || m.kind == "resnet" || m.kind == "cnn")
    return make_conv_net(s, *data, init);
  throw InputError("model.kind", "unsupported model \"" + m.kind + "\"");
}

// k <= d and k with per-tensor slices, for the model's tensors; errors at `path`.<key>.
void check_compressor_dimensions(const CompressorSpec& compressor, const std::string& path,
                                 const std::vector<models::Index>& tensor_sizes) {
  try {
    models::check_dimensions(compressor, tensor_sizes);
  } catch (const models::CompressorConfigError& e) {
    throw InputError(path + "." + e.key(), e.what());
  }
}

}  // namespace

PreparedRun prepare(Scenario scenario) {
  PreparedRun p;
  p.scenario = std::move(scenario);
  const Scenario& s = p.scenario;
  const auto n = s.workers;

  if (s.data.source != "none") {
    check_data_memory(s);  // before generating it (sim/run/memory_guard.hpp)
    p.data = load_data(s);
    const auto samples = p.data->train.size();
    if (samples < n)
      throw InputError("workers",
                       fmt::format("{} workers but only {} training samples", n, samples));
    // Shards are row indices into the one shared training set (never copies).
    p.shards = make_partition(s, p.data->train);
    std::size_t smallest = p.shards.front().size();
    for (const auto& shard : p.shards) smallest = std::min(smallest, shard.size());
    // Non-iid partitions can leave a worker with fewer samples than a batch; the sampler
    // then uses the whole shard. For iid shards a too-large batch is a mistake.
    if (s.data.partition.kind == "iid" && s.algorithm.batch_size > std::int64_t(smallest))
      throw InputError("algorithm.batch_size",
                       fmt::format("{} is larger than the smallest shard ({} samples)",
                                   s.algorithm.batch_size, smallest));
    if (s.metrics.eval_samples && *s.metrics.eval_samples < samples) {
      auto rng = make_rng(s.seed, "eval-samples");
      p.data->eval = models::sample_rows(p.data->train, *s.metrics.eval_samples, rng);
    }
    p.samples_per_iteration = s.algorithm.batch_size * n;
    p.train_samples = samples;
  }
  p.objective = make_objective(s, p.data ? &*p.data : nullptr);
  check_model_memory(s, p.objective->dimension(), node_count(s));
  // Compressor options that depend on the model's size (k <= d per tensor) are checked
  // here, before anything is written; throws InputError.
  check_compressor_dimensions(s.algorithm.compressor, "algorithm.compressor",
                              p.objective->tensor_sizes());
  if (s.algorithm.options)  // the kind's own compressors (e.g. the SVRG family's downlink)
    for (const auto& [key, config] : s.algorithm.options->compressors())
      check_compressor_dimensions(config, key, p.objective->tensor_sizes());

  if (s.stop.iterations) p.max_iterations = *s.stop.iterations;
  if (s.stop.epochs && p.train_samples > 0) {
    const double samples = *s.stop.epochs * double(p.train_samples);
    const auto k = std::int64_t(std::ceil(samples / double(p.samples_per_iteration) - 1e-9));
    p.max_iterations = std::min(p.max_iterations.value_or(k), std::max<std::int64_t>(k, 1));
  }
  return p;
}

}  // namespace dlsim::sim
