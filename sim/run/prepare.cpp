// prepare(): data, preprocessing, label fitting, partition and objective, with every
// problem reported as an InputError that names the scenario key it comes from (a bad
// data file: the key of its path, and "file:line: what" in the message).
// Order: load → test_fraction split → train_samples subsample → normalize (training
// statistics) → labels fitted to the model → eval_samples subsample → float32 storage
// (data.storage; written directly by the source when nothing before it edits the values,
// storage_at_load) → partition.
#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>

#include <fmt/format.h>

#include "models/compress/factory.hpp"
#include "models/data/registry.hpp"
#include "models/data/sources.hpp"
#include "models/objectives/registry.hpp"
#include "sim/algorithms/algorithms.hpp"
#include "sim/engine/rng.hpp"
#include "sim/run/memory_estimate.hpp"
#include "sim/run/memory_guard.hpp"
#include "sim/run/runner.hpp"
#include "sim/runtime/training.hpp"
#include "sim/scenario/input_error.hpp"

namespace dlsim::sim {

namespace {

// The storage the source may write directly: the scenario's, when no step between
// loading and storing edits the values (they work on plain float64 storage); none
// otherwise (float64, narrowed after those steps). Row selections (test_fraction,
// train_samples, eval_samples) copy rows in whatever storage they have, and a channel
// normalization with one map for every channel maps byte codes' table (float64 only:
// float32 is rounded after it).
std::optional<models::Storage> storage_at_load(const Scenario& s) {
  const DataSpec& d = s.data;
  const bool float32 = d.storage == "float32";
  const bool coded_map = d.normalize == "channel" && !float32 &&
                         models::channel_map_is_one(d.channel_mean, d.channel_std);
  if (d.normalize != "none" && !coded_map) return std::nullopt;
  return float32 ? models::Storage::float32 : models::Storage::float64;
}

// Whether the source stores the values as the scenario asks while it loads them, holding
// no float64 copy (DataSourceFacts::writes_storage; float64 then as byte codes).
bool loads_directly(const Scenario& s) {
  return storage_at_load(s).has_value() && s.data.facts().writes_storage;
}

// The registered source loads or generates the data (models/data/registry.hpp), showing
// `check` the dense shape before storing it.
models::DataSplit load_source(const Scenario& s, const models::DenseCheck& check) {
  auto rng = make_rng(s.seed, "data");
  try {
    const auto storage = storage_at_load(s);
    return storage ? s.data.options->load(rng, check, *storage) : s.data.options->load(rng, check);
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

// Rows held at once while the data is prepared: the `loaded` rows, plus the copies a
// test_fraction split (every training row) or a train_samples subsample (its rows) makes
// while the loaded set still exists (models/data/preprocess.cpp).
std::int64_t loading_peak_rows(const DataSpec& d, std::int64_t loaded, std::int64_t loaded_train,
                               std::int64_t split_train) {
  std::int64_t copies = d.test_fraction > 0 ? loaded_train : 0;
  if (d.train_samples && *d.train_samples < split_train)
    copies = std::max(copies, *d.train_samples);
  return loaded + copies;
}

// The rows the estimate's "loading" piece counts: loading_peak_rows, or, when the source
// stores the values as it loads them (then counted at their stored size), 0 unless a
// copy makes that moment larger than the data itself.
std::int64_t loading_rows_of(const Scenario& s, std::int64_t loaded, std::int64_t loaded_train,
                             std::int64_t split_train) {
  const std::int64_t peak = loading_peak_rows(s.data, loaded, loaded_train, split_train);
  if (!loads_directly(s)) return peak;
  return peak > loaded ? peak : 0;
}

// `loading_rows`: loading_rows_of this data.
models::DataSplit load_data(const Scenario& s, const models::DenseCheck& check,
                            std::int64_t& loading_rows) {
  const DataSpec& d = s.data;
  models::DataSplit split = load_source(s, check);
  const std::int64_t loaded = split.train.size() + (split.test ? split.test->size() : 0);
  const std::int64_t loaded_train = split.train.size();
  if (d.test_fraction > 0) {
    if (split.test)
      throw InputError("data.test_fraction",
                       "cannot split off a test set: the data already has a test set");
    auto rng = make_rng(s.seed, "test-split");
    models::split_test_fraction(split, d.test_fraction, rng);
  }
  loading_rows = loading_rows_of(s, loaded, loaded_train, split.train.size());
  if (d.train_samples) {
    auto rng = make_rng(s.seed, "train-samples");
    models::subsample_train(split, *d.train_samples, rng);
  }
  if (d.normalize == "channel")
    models::normalize_channels(split, d.shape().image->channels, d.channel_mean, d.channel_std);
  else
    models::normalize(split, d.normalize);
  fit_labels(s, split);
  return split;
}

// load_data() for prepare(): the data with the stated dense shape checked before it is
// stored, and the eval_samples subsample of the training set drawn.
template <class Check>
models::DataSplit load_prepared_data(const Scenario& s, const Check& check,
                                     std::int64_t& loading_rows) {
  const models::DataShape stated = s.data.shape();
  models::DataSplit data = load_data(
      s,
      [&](models::DataShape dense) {  // the source's dense shape, before it is stored
        dense.classes = stated.classes;
        try {
          check(dense);
        } catch (const InputError& e) {  // the file is what makes it large
          const auto files = s.data.options->paths();
          throw InputError(files.empty() ? e.where() : "data." + files.front().first, e.problem());
        }
      },
      loading_rows);
  if (s.metrics.eval_samples && *s.metrics.eval_samples < data.train.size()) {
    auto rng = make_rng(s.seed, "eval-samples");
    data.eval = models::sample_rows(data.train, *s.metrics.eval_samples, rng);
  }
  if (s.data.storage == "float32") {  // after every step that edits the values (a no-op
                                      // when the source wrote floats, storage_at_load)
    data.train.features.to_float32();
    if (data.test) data.test->features.to_float32();
    if (data.eval) data.eval->features.to_float32();
  }
  return data;
}

models::Shards make_partition(const Scenario& s, const models::Dataset& train) {
  const PartitionSpec& p = s.data.partition;
  const int n = int(s.workers);
  auto rng = make_rng(s.seed, "partition");
  try {
    if (p.kind == "dirichlet" && p.balanced)
      return models::partition_balanced_dirichlet(train.labels, n, p.alpha, rng);
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
  const models::ModelContext context{
      .data = data, .workers = int(s.workers), .starts = &starts, .image = s.data.shape().image};
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

// The run's sizes as far as `shape` (what the scenario says, or what the data turned out
// to be) tells them: an estimate made from them is a lower bound of the final one.
RunSizes sizes_from_shape(const Scenario& s, const models::DataShape& shape,
                          const PrepareOptions& options) {
  RunSizes z;
  z.threads = options.threads;
  z.metrics_thread = metrics_in_background(s, options.ranks, options.inline_metrics);
  z.ranks = options.ranks;
  // A kind that may simulate fewer workers than it has is only known to run one.
  z.simulated_workers = algorithm_info(s.algorithm.kind).simulated_workers ? 1 : s.workers;
  z.rounds = s.stop.iterations.value_or(0);
  if (s.data.facts().has_data) {
    const std::int64_t loaded_train = shape.samples.value_or(0);
    const auto moved = std::int64_t(std::floor(double(loaded_train) * s.data.test_fraction));
    z.test_rows = shape.test_samples + moved;  // test_fraction moves rows, adds none
    z.train_rows = loaded_train - moved;
    z.loading_rows =
        loading_rows_of(s, loaded_train + shape.test_samples, loaded_train, z.train_rows);
    z.loaded_as_stored = loads_directly(s);
    if (s.data.train_samples) z.train_rows = std::min(z.train_rows, *s.data.train_samples);
    z.features = shape.features.value_or(0);
    z.float32 = s.data.storage == "float32";
    z.coded = !z.float32 && loads_directly(s);
    if (s.metrics.eval_samples && *s.metrics.eval_samples < z.train_rows)
      z.eval_rows = *s.metrics.eval_samples;
  }
  const std::int64_t d = s.model.options->parameter_count(shape).value_or(0);
  z.parameters = d;
  if (s.model.facts().has_values) z.values = d;
  return z;
}

// The shape of the loaded data, with the classes its labels have.
models::DataShape loaded_shape(const Scenario& s, const models::DataSplit& data) {
  models::DataShape shape = s.data.shape();
  shape.features = data.train.feature_count();
  shape.samples = data.train.size();
  shape.test_samples = data.test ? data.test->size() : 0;
  if (data.train.classes > 0) shape.classes = data.train.classes;
  return shape;
}

// The final sizes, from the prepared data and the built objective.
RunSizes final_sizes(const PreparedRun& p, const PrepareOptions& options,
                     std::int64_t loading_rows) {
  const Scenario& s = p.scenario;
  const models::Objective& objective = *p.objective;
  RunSizes z;
  models::DataShape shape = s.data.shape();
  if (p.data) {
    shape = loaded_shape(s, *p.data);
    z.train_rows = p.data->train.size();
    z.test_rows = p.data->test ? p.data->test->size() : 0;
    z.eval_rows = p.data->eval ? p.data->eval->size() : 0;
    z.features = p.data->train.feature_count();
    z.float32 = p.data->train.features.is_float32();
    z.coded = p.data->train.features.is_coded();
    z.loading_rows = loading_rows;
    z.loaded_as_stored = loads_directly(s);
  }
  z.values = objective.has_math() ? objective.dimension() : 0;
  z.parameters = objective.parameters();
  z.tensors = std::int64_t(objective.tensor_sizes().size());
  // SVRG's snapshot gradients run over whole shards (StateMemory::shard_gradients).
  std::int64_t rows = s.algorithm.batch_size;
  if (s.algorithm.facts().memory.shard_gradients)
    for (const auto& shard : p.shards) rows = std::max(rows, std::int64_t(shard.size()));
  z.model = s.model.options->memory(shape, rows);
  const auto& simulated = algorithm_info(s.algorithm.kind).simulated_workers;
  z.simulated_workers = simulated ? simulated(s, objective) : s.workers;
  z.threads = options.threads;
  z.metrics_thread = metrics_in_background(s, options.ranks, options.inline_metrics);
  z.ranks = options.ranks;
  z.rounds = p.max_iterations.value_or(0);
  return z;
}

}  // namespace

void check_scenario_memory(const Scenario& s, const PrepareOptions& options) {
  check_memory(estimate_memory(s, sizes_from_shape(s, s.data.shape(), options)),
               memory_limit(options.memory_limit));
}

PreparedRun prepare(Scenario scenario, const PrepareOptions& options) {
  PreparedRun p;
  p.scenario = std::move(scenario);
  const Scenario& s = p.scenario;
  const auto n = s.workers;
  const std::optional<MemoryLimit> limit = memory_limit(options.memory_limit);
  const auto check = [&](const models::DataShape& shape) {
    check_memory(estimate_memory(s, sizes_from_shape(s, shape, options)), limit);
  };

  // What the scenario alone says (generated data, stated parameter counts), before
  // anything is generated or loaded; then what the data turns out to be. Across ranks
  // one process per machine loads it (options.sharing); the others wait for its copy
  // even when their own check failed, so that no process waits for one that left.
  std::int64_t loading_rows = 0;
  const bool has_data = s.data.facts().has_data;
  std::exception_ptr failed;
  try {
    check(s.data.shape());
    if (has_data && (!options.sharing || options.sharing->loads()))
      p.data = load_prepared_data(s, check, loading_rows);
  } catch (...) {
    failed = std::current_exception();
  }
  if (has_data && options.sharing) {
    auto shared = options.sharing->share(std::move(p.data));
    if (!shared && !failed)
      throw InputError("data", "the process that loads the data on this machine could not");
    p.data = std::move(shared);
  }
  if (failed) std::rethrow_exception(failed);
  if (has_data) {
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
    p.samples_per_iteration = s.algorithm.batch_size * n;
    p.train_samples = samples;
  }
  if (p.data) check(loaded_shape(s, *p.data));  // before the objective allocates its vectors
  p.objective = make_objective(s, p.data ? &*p.data : nullptr);
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
  p.memory = estimate_memory(s, final_sizes(p, options, loading_rows));
  check_memory(p.memory, limit);
  return p;
}

}  // namespace dlsim::sim
