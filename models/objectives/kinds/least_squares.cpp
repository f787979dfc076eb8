// Model `least-squares`: f(w) = (1/2N) Σ (a_iᵀw − b_i)² + (λ2/2)‖w‖² + λ1‖w‖₁
// (models/objectives/least_squares.hpp); takes real targets, and class indices as numbers.
#include "models/objectives/least_squares.hpp"
#include "models/objectives/kinds/keys.hpp"

namespace dlsim::models {

std::unique_ptr<Objective> LeastSquaresOptions::build(const ModelContext& c) const {
  return std::make_unique<LeastSquares>(c.data->train.feature_count(), reg, bias, init);
}

namespace least_squares_model {

std::shared_ptr<const ModelOptions> read(const nlohmann::json& j) {
  auto o = std::make_shared<LeastSquaresOptions>();
  kinds::read_linear(j, *o);
  return o;
}

const ModelRegistration registered{{
    .name = "least-squares",
    .doc = "f(w) = (1/2N) sum (a_i'w - b_i)^2 + (l2/2)||w||^2 + l1||w||_1.",
    .keys = kinds::regularizer_keys() + std::vector<spec::Key>{kinds::linear_init_key()},
    .facts = {.smoothness_estimable = true},
    .read = read,
    .order = 0,
}};

}  // namespace least_squares_model
}  // namespace dlsim::models
