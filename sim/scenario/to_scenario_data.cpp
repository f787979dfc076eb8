// to_scenario, section `data`: the registered source reads its own options
// (models/data/registry.hpp), the common keys are read here; and which data each model
// can use (checks that read data, model, stop and metrics together, from the facts both
// registries declare).
#include <limits>

#include "sim/scenario/messages.hpp"
#include "sim/scenario/to_scenario_sections.hpp"

namespace dlsim::sim::scenario_sections {

using nlohmann::json;

namespace {

// normalize "channel" needs an image shape; channel_mean and channel_std come together,
// one number per channel, and only with it.
void read_channel_normalization(const json& j, DataSpec& d) {
  const bool mean = j.contains("channel_mean"), sd = j.contains("channel_std");
  if (d.normalize != "channel") {
    if (mean || sd)
      throw InputError(mean ? "data.channel_mean" : "data.channel_std",
                       "only with normalize \"channel\", got normalize \"" + d.normalize + "\"");
    return;
  }
  const std::optional<models::ImageShape> image = d.shape().image;
  if (!image)
    throw InputError("data.normalize",
                     "\"channel\" needs images: a source with an image shape (fashion-mnist, "
                     "cifar10) or data.image_shape");
  if (mean != sd)
    throw InputError(
        mean ? "data.channel_std" : "data.channel_mean",
        "must be given with data." + std::string(mean ? "channel_mean" : "channel_std"));
  if (!mean) return;
  d.channel_mean = j.at("channel_mean").get<std::vector<double>>();
  d.channel_std = j.at("channel_std").get<std::vector<double>>();
  for (const auto& [key, values] : {std::pair{"data.channel_mean", &d.channel_mean},
                                    std::pair{"data.channel_std", &d.channel_std}}) {
    if (std::int64_t(values->size()) != image->channels)
      throw InputError(key, "needs one number per channel (" + std::to_string(image->channels) +
                                " for " + image->text() + " images), got " +
                                std::to_string(values->size()));
  }
}

}  // namespace

void read_data(const json& j, DataSpec& d) {
  d.source = j.at("source").get<std::string>();
  const models::DataSourceInfo& info = models::data_source_info(d.source);
  if (info.read) {
    try {
      d.options = info.read(in_base_units(j, info.keys));
    } catch (const models::DataConfigError& e) {
      throw InputError("data." + e.key(), e.what());
    }
  }
  if (!info.facts.has_data) return;
  d.test_fraction = j.at("test_fraction").get<double>();
  if (j.contains("train_samples")) d.train_samples = j.at("train_samples").get<std::int64_t>();
  d.normalize = j.at("normalize").get<std::string>();
  read_channel_normalization(j, d);
  d.storage = j.at("storage").get<std::string>();
  const json& partition = j.at("partition");
  d.partition.kind = partition.at("kind").get<std::string>();
  if (partition.contains("alpha")) d.partition.alpha = partition.at("alpha").get<double>();
  if (partition.contains("balanced")) d.partition.balanced = partition.at("balanced").get<bool>();
  if (partition.contains("per_worker"))
    d.partition.per_worker = partition.at("per_worker").get<std::int64_t>();
}

// Which data each model kind can use (docs/design.md §4), from the facts of both:
//  - models without data need the source without data, every other model needs data;
//  - classifiers (binary or class-index labels) cannot take real-valued targets (labels
//    of files are checked when they are read);
//  - a model's required input features must match the features the scenario states;
//  - the model checks what it needs of the data the scenario describes (logistic: two
//    classes, or positive_classes);
//  - least-squares accepts classification data and regresses the class index (allowed,
//    documented: a baseline, not a classifier);
//  - consensus only makes sense for decentralized algorithms (centralized ones keep one
//    model, so every worker would share one start).
void check_data(const Scenario& s) {
  const models::ModelFacts& model = s.model.facts();
  const models::DataSourceFacts& data = s.data.facts();
  const bool no_data = !data.has_data;
  const std::string& kind = s.model.kind;
  if (!model.needs_data && !no_data) {
    throw InputError("data.source", "must be \"" + models::no_data_source() +
                                        "\" for model kind \"" + kind + "\", got \"" +
                                        s.data.source + "\"");
  }
  if (model.needs_data && no_data) {
    throw InputError("data.source",
                     "model kind \"" + kind + "\" needs data; got \"" + s.data.source + "\"");
  }
  if (model.needs_decentralized && !s.decentralized()) {
    throw InputError("model.kind", kind + " needs a decentralized algorithm (" +
                                       model.decentralized_reason + "), got \"" + s.algorithm.kind +
                                       "\"");
  }
  if (model.labels != models::LabelNeeds::any && data.real_targets) {
    const std::string alternative =
        data.classes_alternative.empty() ? "" : " (use " + data.classes_alternative + ")";
    throw InputError("data.source", "model kind \"" + kind + "\" needs class labels; " +
                                        s.data.source + " has real targets" + alternative);
  }
  const models::DataShape shape = s.data.shape();
  // A model that takes images of any shape takes the data's stated one (checked against
  // data.features where the source reads it).
  const bool stated_image = model.image_input && shape.image;
  if (model.input_features && shape.features && !stated_image &&
      *shape.features != *model.input_features) {
    throw InputError(
        "data.features",
        "model kind \"" + kind + "\" takes " + model.input_text + " (" +
            std::to_string(*model.input_features) + " features)" +
            (model.image_input ? " unless data.image_shape states another shape" : "") + ", got " +
            std::to_string(*shape.features));
  }
  try {
    s.model.options->check_data(shape);
  } catch (const models::ModelConfigError& e) {
    throw InputError("model." + e.key(), e.what());
  }
  if (no_data && s.stop.epochs) {
    throw InputError("stop.epochs",
                     "epochs need data, but data.source is \"" + s.data.source + "\"");
  }
  if (!model.has_loss && s.stop.target_loss) {
    throw InputError("stop.target_loss",
                     "a target loss needs a model with a loss, but model kind is \"" + kind + "\"");
  }
  if (no_data && s.metrics.every == MetricsSpec::Every::epochs) {
    throw InputError("metrics.every.epochs",
                     "epochs need data, but data.source is \"" + s.data.source + "\"");
  }
  if (no_data && s.metrics.eval_samples) {
    throw InputError("metrics.eval_samples",
                     "needs data, but data.source is \"" + s.data.source + "\"");
  }
  if (const auto own = s.data.options ? s.data.options->own_test_set() : std::nullopt;
      own && s.data.test_fraction > 0.0) {
    throw InputError("data.test_fraction",
                     "must be 0 " + *own + ", got " + messages::number_text(s.data.test_fraction));
  }
  if (s.data.partition.kind == "shards" &&
      s.data.partition.per_worker > std::numeric_limits<std::int64_t>::max() / s.workers) {
    throw InputError("data.partition.per_worker", "too large");
  }
}

}  // namespace dlsim::sim::scenario_sections
