// prepare(): data, preprocessing, label fitting, partition and objective, with every
// problem reported as an InputError that names the scenario key it comes from (a bad
// data file: the key of its path, and "file:line: what" in the message).
// Order: load → test_fraction split → train_samples subsample → normalize (training
// statistics) → labels fitted to the model → partition → eval_samples subsample.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/compress/factory.hpp"
#include "models/data/registry.hpp"
#include "models/data/sources.hpp"
#include "models/objectives/registry.hpp"
#include "sim/algorithms/algorithms.hpp"
#include "sim/engine/rng.hpp"
#include "sim/run/memory_guard.hpp"
#include "sim/run/runner.hpp"
#include "sim/runtime/training.hpp"
#include "sim/scenario/input_error.hpp"

namespace dlsim::sim {

namespace {

// The registered source loads or generates the data (models/data/registry.hpp).
models::DataSplit load_source(const Scenario& s) {
  auto rng = make_rng(s.seed, "data");
  try {
    return s.data.options->load(rng);
  } catch (const models::DataConfigError& e) {
    throw InputError("data." + e.key(), e.what());
  }
}

// Labels as the model needs them (ModelFacts::labels): ±1, class indices. A problem the
// model's options cause is reported at their key, one of the data at the key of its file.
void fit_labels(const Scenario& s, models::DataSplit& split) {
  const std::string& kind = s.model.kind;
  try {
    s.model.options->fit_labels(split);
  } catch (const models::ModelConfigError& e) {
    throw InputError("model." + e.key(), fmt::format("model kind \"{}\": {}", kind, e.what()));
  } catch (const std::invalid_argument& e) {
    const auto files = s.data.options->paths();
    const std::string key = files.empty() ? "data.source" : "data." + files.front().first;
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

// The registered kind builds its objective (models/objectives/registry.hpp).
std::unique_ptr<models::Objective> make_objective(const Scenario& s,
                                                  const models::DataSplit* data) {
  auto starts = make_rng(s.seed, "consensus-starts");
  const models::ModelContext context{.data = data, .workers = int(s.workers), .starts = &starts};
  try {
    return s.model.options->build(context);
  } catch (const models::ModelConfigError& e) {
    throw InputError(e.key().empty() ? "model" : "model." + e.key(), e.what());
  }
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

  if (s.data.facts().has_data) {
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
    const double iterations = std::ceil(samples / double(p.samples_per_iteration) - 1e-9);
    // An iteration count must fit the int64 counters (1e18 epochs once wrapped to 0).
    if (!(iterations < 0x1p62))
      throw InputError("stop.epochs", "means " + fmt::format("{:.3g}", iterations) +
                                          " iterations, more than a run can count (4.6e18)");
    const auto k = std::int64_t(iterations);
    p.max_iterations = std::min(p.max_iterations.value_or(k), std::max<std::int64_t>(k, 1));
  }
  return p;
}

}  // namespace dlsim::sim
