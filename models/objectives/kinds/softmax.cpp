// Model `softmax`: multinomial logistic regression, mean cross-entropy of softmax(A W + b)
// + regularizers (models/objectives/softmax.hpp), on class indices.
#include "models/objectives/softmax.hpp"
#include "models/data/labels.hpp"
#include "models/objectives/kinds/keys.hpp"

namespace dlsim::models {

std::unique_ptr<Objective> SoftmaxOptions::build(const ModelContext& c) const {
  return std::make_unique<Softmax>(c.data->train.feature_count(), c.data->train.classes, reg, bias,
                                   init);
}

void SoftmaxOptions::fit_labels(DataSplit& split) const {
  index_classes(split);
}

namespace softmax_model {

std::shared_ptr<const ModelOptions> read(const nlohmann::json& j) {
  auto o = std::make_shared<SoftmaxOptions>();
  kinds::read_linear(j, *o);
  return o;
}

const ModelRegistration registered{{
    .name = "softmax",
    .doc = "Multinomial logistic regression: mean cross-entropy of softmax(A W + b) + "
           "regularizers.",
    .keys = kinds::regularizer_keys() + std::vector<spec::Key>{kinds::linear_init_key()},
    .facts = {.labels = LabelNeeds::class_indices, .smoothness_estimable = true},
    .read = read,
    .order = 2,
}};

}  // namespace softmax_model
}  // namespace dlsim::models
