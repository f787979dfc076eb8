// Model `mlp`: a multilayer perceptron with a softmax output, mean cross-entropy +
// regularizers (models/objectives/mlp.hpp), on class indices.
#include "models/objectives/mlp.hpp"
#include "models/data/labels.hpp"
#include "models/objectives/kinds/keys.hpp"

namespace dlsim::models {

std::unique_ptr<Objective> MlpOptions::build(const ModelContext& c) const {
  return std::make_unique<Mlp>(c.data->train.feature_count(), hidden, c.data->train.classes,
                               activation, reg, bias, init);
}

void MlpOptions::fit_labels(DataSplit& split) const {
  index_classes(split);
}

namespace mlp_model {

using namespace spec;

std::shared_ptr<const ModelOptions> read(const nlohmann::json& j) {
  auto o = std::make_shared<MlpOptions>();
  kinds::read_linear(j, *o);
  const auto hidden = j.at("hidden").get<std::vector<std::int64_t>>();
  o->hidden.assign(hidden.begin(), hidden.end());
  o->activation = kinds::read_activation(j.at("activation"));
  return o;
}

const ModelRegistration registered{{
    .name = "mlp",
    .doc = "Multilayer perceptron, softmax output, mean cross-entropy + regularizers.",
    .keys = kinds::regularizer_keys() +
            std::vector<Key>{
                defaulted("hidden", array_of(integer().ge(1)), nlohmann::json::array({128}),
                          "Widths of the hidden layers (empty: softmax regression)."),
                defaulted("activation", one_of({"relu", "tanh"}), "relu",
                          "Activation of the hidden layers."),
                defaulted("init", object(kinds::mlp_init_object()), nlohmann::json::object(),
                          "Initial weights (same on every worker)."),
            },
    .facts = {.labels = LabelNeeds::class_indices},
    .read = read,
    .order = 3,
}};

}  // namespace mlp_model
}  // namespace dlsim::models
