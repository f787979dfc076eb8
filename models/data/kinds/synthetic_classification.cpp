// Data source `synthetic-classification`: Gaussian clusters, one per class
// (models/data/synthetic_classification.cpp).
#include "models/data/kinds/options.hpp"

namespace dlsim::models {

using nlohmann::json;
using namespace spec;

DataSplit SyntheticClassificationSource::load(std::mt19937_64& rng) const {
  DataSplit split;
  split.train = synthetic_classification(options, rng);
  return split;
}

DataShape SyntheticClassificationSource::shape() const {
  return {.features = options.features,
          .image = image,
          .image_text = image ? "data.image_shape is " + image->text() : "",
          .classes = options.classes,
          .classes_text = "data.classes is " + std::to_string(options.classes),
          .samples = options.samples};
}

namespace synthetic_classification_source {

std::shared_ptr<const DataOptions> read(const json& j) {
  auto o = std::make_shared<SyntheticClassificationSource>();
  o->options.samples = j.at("samples").get<std::int64_t>();
  o->options.features = j.at("features").get<std::int64_t>();
  o->options.classes = int(j.at("classes").get<std::int64_t>());
  o->options.separation = j.at("separation").get<double>();
  o->image = read_image_shape(j);
  check_image_features(o->image, o->options.features, "data.features");
  return o;
}

const DataSourceRegistration registered{{
    .name = "synthetic-classification",
    .doc = "Gaussian clusters: class centres N(0, separation^2/features I), unit noise.",
    .keys = {defaulted("samples", integer().ge(1), 1000, "Number of samples generated."),
             defaulted("features", integer().ge(1), 20, "Number of features."),
             defaulted("classes", integer().ge(2).le(100000), 2, "Number of classes."),
             defaulted("separation", number().ge(0), 2,
                       "Scale of the class centres (mean centre distance sqrt(2)*separation, "
                       "noise 1 per feature)."),
             image_shape_key()},
    .read = read,
    .order = 1,
}};

}  // namespace synthetic_classification_source
}  // namespace dlsim::models
