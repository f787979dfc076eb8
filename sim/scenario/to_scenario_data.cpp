// to_scenario, section `data`: the typed DataSpec, and which data each model kind can
// use (checks that read data, model, stop and metrics together).
#include <limits>

#include "sim/scenario/messages.hpp"
#include "sim/scenario/to_scenario_sections.hpp"

namespace dlsim::sim::scenario_sections {

using nlohmann::json;

void read_data(const json& j, DataSpec& d) {
  d.source = j.at("source").get<std::string>();
  if (d.source == "none") return;
  if (d.source == "synthetic-regression") {
    d.preset = j.at("preset").get<std::string>();
    d.samples = j.at("samples").get<std::int64_t>();
    d.features = j.at("features").get<std::int64_t>();
    d.noise = j.at("noise").get<double>();
    d.condition = j.at("condition").get<double>();
  } else if (d.source == "synthetic-classification") {
    d.samples = j.at("samples").get<std::int64_t>();
    d.features = j.at("features").get<std::int64_t>();
    d.classes = j.at("classes").get<std::int64_t>();
    d.separation = j.at("separation").get<double>();
  } else if (d.source == "csv") {
    d.path = j.at("path").get<std::string>();
    d.test_path = j.at("test_path").get<std::string>();
    d.label_column = j.at("label_column").get<std::string>();
  } else if (d.source == "libsvm") {
    d.path = j.at("path").get<std::string>();
    d.test_path = j.at("test_path").get<std::string>();
  } else if (d.source == "fashion-mnist") {
    d.path = j.at("path").get<std::string>();
  }
  d.test_fraction = j.at("test_fraction").get<double>();
  if (j.contains("train_samples")) d.train_samples = j.at("train_samples").get<std::int64_t>();
  d.normalize = j.at("normalize").get<std::string>();
  const json& partition = j.at("partition");
  d.partition.kind = partition.at("kind").get<std::string>();
  if (partition.contains("alpha")) d.partition.alpha = partition.at("alpha").get<double>();
  if (partition.contains("per_worker"))
    d.partition.per_worker = partition.at("per_worker").get<std::int64_t>();
}

// Which data each model kind can use (docs/design.md §4):
//  - profile and consensus need data.source none, every other model needs data;
//  - logistic needs binary labels (or positive_classes), softmax and mlp integer class
//    labels; synthetic-regression has real-valued targets, so only least-squares fits it
//    (labels of files are checked when they are read);
//  - least-squares accepts classification data and regresses the class index (allowed,
//    documented: a baseline, not a classifier);
//  - consensus only makes sense for decentralized algorithms (centralized ones keep one
//    model, so every worker would share one start).
void check_data(const Scenario& s) {
  const bool no_data = s.data.source == "none";
  const std::string& kind = s.model.kind;
  const bool dataless_model = kind == "profile" || kind == "consensus";
  if (dataless_model && !no_data) {
    throw InputError("data.source", "must be \"none\" for model kind \"" + kind + "\", got \"" +
                                        s.data.source + "\"");
  }
  if (!dataless_model && no_data) {
    throw InputError("data.source", "model kind \"" + kind + "\" needs data; got \"none\"");
  }
  if (kind == "consensus" && !s.decentralized()) {
    throw InputError("model.kind",
                     "consensus needs a decentralized algorithm (every worker "
                     "holds its own vector), got \"" +
                         s.algorithm.kind + "\"");
  }
  const bool convolutional = kind == "lenet5" || kind == "resnet" || kind == "cnn";
  const bool classifier = kind == "logistic" || kind == "softmax" || kind == "mlp" || convolutional;
  // Convolutional models take 28x28x1 images: fashion-mnist, or 784 features (files are
  // checked when they are read, in prepare).
  if (convolutional && s.data.source == "synthetic-classification" && s.data.features != 784) {
    throw InputError("data.features", "model kind \"" + kind +
                                          "\" takes 28x28 images (784 features), got " +
                                          std::to_string(s.data.features));
  }
  if (classifier && s.data.source == "synthetic-regression") {
    throw InputError("data.source", "model kind \"" + kind +
                                        "\" needs class labels; synthetic-regression has real "
                                        "targets (use synthetic-classification)");
  }
  if (kind == "logistic" && s.data.source == "synthetic-classification" && s.data.classes > 2 &&
      s.model.positive_classes.empty()) {
    throw InputError("model.positive_classes",
                     "logistic regression is binary but data.classes is " +
                         std::to_string(s.data.classes) + "; list the positive classes");
  }
  if (kind == "logistic" && s.data.source == "fashion-mnist" && s.model.positive_classes.empty()) {
    throw InputError("model.positive_classes",
                     "logistic regression is binary but fashion-mnist has 10 classes; list the "
                     "positive classes");
  }
  if (no_data && s.stop.epochs) {
    throw InputError("stop.epochs", "epochs need data, but data.source is \"none\"");
  }
  if (kind == "profile" && s.stop.target_loss) {
    throw InputError("stop.target_loss",
                     "a target loss needs a model with a loss, but model kind is \"profile\"");
  }
  if (no_data && s.metrics.every == MetricsSpec::Every::epochs) {
    throw InputError("metrics.every.epochs", "epochs need data, but data.source is \"none\"");
  }
  if (no_data && s.metrics.eval_samples) {
    throw InputError("metrics.eval_samples", "needs data, but data.source is \"none\"");
  }
  if (!s.data.test_path.empty() && s.data.test_fraction > 0.0) {
    throw InputError("data.test_fraction",
                     "must be 0 when data.test_path gives a separate test file, got " +
                         messages::number_text(s.data.test_fraction));
  }
  if (s.data.source == "fashion-mnist" && s.data.test_fraction > 0.0) {
    throw InputError("data.test_fraction",
                     "must be 0 for fashion-mnist, which has its official 10,000-image test "
                     "set, got " +
                         messages::number_text(s.data.test_fraction));
  }
  if ((s.data.source == "csv" || s.data.source == "libsvm") && s.data.path.empty()) {
    throw InputError("data.path", "data.source " + s.data.source + " needs a path");
  }
  if (s.data.partition.kind == "shards" &&
      s.data.partition.per_worker > std::numeric_limits<std::int64_t>::max() / s.workers) {
    throw InputError("data.partition.per_worker", "too large");
  }
}

}  // namespace dlsim::sim::scenario_sections
