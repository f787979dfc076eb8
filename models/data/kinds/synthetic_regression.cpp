// Data source `synthetic-regression`: b = A w* + noise, rows of A Gaussian with a chosen
// condition number (models/data/synthetic_regression.cpp); real-valued targets, so only
// regression models take it.
#include "models/data/kinds/options.hpp"

namespace dlsim::models {

using nlohmann::json;
using namespace spec;

DataSplit SyntheticRegressionSource::load(std::mt19937_64& rng) const {
  DataSplit split;
  split.train = synthetic_regression(options, rng);
  return split;
}

DataShape SyntheticRegressionSource::shape() const {
  return {.features = options.features, .samples = options.samples};
}

namespace synthetic_regression_source {

std::vector<Key> keys() {
  const auto preset_is_msd = [](const json& root) {
    return lookup(root, {"data", "preset"}) == "yearpredictionmsd";
  };
  Key samples = defaulted("samples", integer().ge(1), 1000, "Number of samples generated.");
  samples.dynamic = [=](const json& root) { return json(preset_is_msd(root) ? 463715 : 1000); };
  samples.default_doc = "463715 with preset yearpredictionmsd, else 1000";
  Key features = defaulted("features", integer().ge(1), 20, "Number of features.");
  features.dynamic = [=](const json& root) { return json(preset_is_msd(root) ? 90 : 20); };
  features.default_doc = "90 with preset yearpredictionmsd, else 20";
  return {
      defaulted("preset", one_of({"none", "yearpredictionmsd"}), "none",
                "Shape preset: yearpredictionmsd = 463,715 samples x 90 features "
                "(as in the LPC-SVRG paper)."),
      samples,
      features,
      defaulted("noise", number().ge(0), 0.1, "Standard deviation of the label noise."),
      defaulted("condition", number().ge(1), 1, "Condition number of the feature covariance."),
  };
}

std::shared_ptr<const DataOptions> read(const json& j) {
  auto o = std::make_shared<SyntheticRegressionSource>();
  o->preset = j.at("preset").get<std::string>();
  o->options.samples = j.at("samples").get<std::int64_t>();
  o->options.features = j.at("features").get<std::int64_t>();
  o->options.noise = j.at("noise").get<double>();
  o->options.condition = j.at("condition").get<double>();
  return o;
}

const DataSourceRegistration registered{{
    .name = "synthetic-regression",
    .doc = "b = A w* + noise; rows of A Gaussian with a chosen condition number.",
    .keys = keys(),
    .facts = {.real_targets = true, .classes_alternative = "synthetic-classification"},
    .read = read,
    .order = 0,
}};

}  // namespace synthetic_regression_source
}  // namespace dlsim::models
