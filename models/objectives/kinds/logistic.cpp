// Model `logistic`: binary logistic regression, mean log(1 + exp(−b_i a_iᵀw)) +
// regularizers (models/objectives/logistic.hpp), labels ±1, or binarized by
// positive_classes (models/data/labels.hpp).
#include "models/objectives/logistic.hpp"
#include "models/data/labels.hpp"
#include "models/objectives/kinds/keys.hpp"

namespace dlsim::models {

std::unique_ptr<Objective> LogisticOptions::build(const ModelContext& c) const {
  return std::make_unique<Logistic>(c.data->train.feature_count(), reg, bias, init);
}

void LogisticOptions::fit_labels(DataSplit& split) const {
  try {
    binarize_labels(split, positive_classes);
  } catch (const std::invalid_argument& e) {
    if (positive_classes.empty()) throw;
    throw ModelConfigError("positive_classes", e.what());
  }
}

void LogisticOptions::check_data(const DataShape& data) const {
  if (data.classes && *data.classes > 2 && positive_classes.empty())
    throw ModelConfigError(
        "positive_classes",
        "logistic regression is binary but " + data.classes_text + "; list the positive classes");
}

namespace logistic_model {

std::shared_ptr<const ModelOptions> read(const nlohmann::json& j) {
  auto o = std::make_shared<LogisticOptions>();
  kinds::read_linear(j, *o);
  o->positive_classes = j.at("positive_classes").get<std::vector<double>>();
  return o;
}

const ModelRegistration registered{{
    .name = "logistic",
    .doc = "Binary logistic regression, labels -1/+1 (0/1 accepted): mean log(1 + exp(-b_i "
           "a_i'w)) + regularizers.",
    .keys = kinds::regularizer_keys() +
            std::vector<spec::Key>{
                kinds::linear_init_key(),
                spec::defaulted("positive_classes", spec::array_of(spec::number()),
                                nlohmann::json::array(),
                                "Label values that become +1 (all others -1), to binarize "
                                "multiclass data; empty: labels must be -1/+1 or 0/1."),
            },
    .facts = {.labels = LabelNeeds::binary, .smoothness_estimable = true},
    .read = read,
    .order = 1,
}};

}  // namespace logistic_model
}  // namespace dlsim::models
