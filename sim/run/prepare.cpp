// prepare(): data, preprocessing, partition and objective, with every problem
// reported as an InputError that names the scenario key it comes from.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/data/sources.hpp"
#include "models/objectives/least_squares.hpp"
#include "models/objectives/profile.hpp"
#include "sim/engine/rng.hpp"
#include "sim/run/runner.hpp"
#include "sim/scenario/input_error.hpp"

namespace dlsim::sim {

namespace {

models::Dataset load_csv_or_throw(const std::string& path, const std::string& label,
                                  const std::string& key) {
  try {
    return models::load_csv(path, label);
  } catch (const models::DataError& e) {
    throw InputError(key, e.what());
  }
}

models::DataSplit load_data(const Scenario& s) {
  const DataSpec& d = s.data;
  models::DataSplit split;
  if (d.source == "synthetic-regression") {
    auto rng = make_rng(s.seed, "data");
    split.train = models::synthetic_regression({d.samples, d.features, d.noise, d.condition}, rng);
  } else if (d.source == "csv") {
    split.train = load_csv_or_throw(d.path, d.label_column, "data.path");
    if (!d.test_path.empty()) {
      split.test = load_csv_or_throw(d.test_path, d.label_column, "data.test_path");
      if (split.test->feature_count() != split.train.feature_count())
        throw InputError("data.test_path", fmt::format("{} has {} features but {} has {}",
                                                       d.test_path, split.test->feature_count(),
                                                       d.path, split.train.feature_count()));
    }
  } else {
    throw InputError("data.source", "unsupported source \"" + d.source + "\"");
  }
  if (d.test_fraction > 0) {
    if (split.test)
      throw InputError("data.test_fraction",
                       "cannot split off a test set: data.test_path is given");
    auto rng = make_rng(s.seed, "test-split");
    models::split_test_fraction(split, d.test_fraction, rng);
  }
  models::normalize(split, d.normalize);
  return split;
}

std::unique_ptr<models::Objective> make_objective(const Scenario& s,
                                                  const models::DataSplit* data) {
  const ModelSpec& m = s.model;
  if (m.kind == "profile")
    return std::make_unique<models::Profile>(m.parameters, m.compute_time.seconds());
  if (m.kind == "least-squares") {
    models::InitOptions init;
    init.kind = m.init.kind == "normal" ? models::InitOptions::Kind::normal
                                        : models::InitOptions::Kind::zeros;
    init.std = m.init.std;
    return std::make_unique<models::LeastSquares>(data->train.feature_count(),
                                                  models::Regularization{m.l2, m.l1}, m.bias, init);
  }
  throw InputError("model.kind", "unsupported model \"" + m.kind + "\"");
}

}  // namespace

PreparedRun prepare(Scenario scenario) {
  PreparedRun p;
  p.scenario = std::move(scenario);
  const Scenario& s = p.scenario;
  const auto n = s.workers;

  if (s.data.source != "none") {
    p.data = load_data(s);
    const auto samples = p.data->train.size();
    if (samples < n)
      throw InputError("workers",
                       fmt::format("{} workers but only {} training samples", n, samples));
    auto rng = make_rng(s.seed, "partition");
    p.shards = models::partition_iid(samples, int(n), rng);
    std::size_t smallest = p.shards.front().size();
    for (const auto& shard : p.shards) smallest = std::min(smallest, shard.size());
    if (s.algorithm.batch_size > std::int64_t(smallest))
      throw InputError("algorithm.batch_size",
                       fmt::format("{} is larger than the smallest shard ({} samples)",
                                   s.algorithm.batch_size, smallest));
    p.samples_per_iteration = s.algorithm.batch_size * n;
    p.train_samples = samples;
  }
  p.objective = make_objective(s, p.data ? &*p.data : nullptr);

  if (s.stop.iterations) p.max_iterations = *s.stop.iterations;
  if (s.stop.epochs && p.train_samples > 0) {
    const double samples = *s.stop.epochs * double(p.train_samples);
    const auto k = std::int64_t(std::ceil(samples / double(p.samples_per_iteration) - 1e-9));
    p.max_iterations = std::min(p.max_iterations.value_or(k), std::max<std::int64_t>(k, 1));
  }
  return p;
}

}  // namespace dlsim::sim
