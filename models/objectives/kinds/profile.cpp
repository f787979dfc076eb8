// Model `profile`: no math, a parameter count and a compute time per batch
// (models/objectives/profile.hpp), for timing what-ifs.
#include "models/objectives/profile.hpp"
#include "models/objectives/kinds/options.hpp"

namespace dlsim::models {

std::unique_ptr<Objective> ProfileOptions::build(const ModelContext& /*context*/) const {
  return std::make_unique<Profile>(parameters, compute_seconds);
}

std::optional<std::int64_t> ProfileOptions::parameter_count(const DataShape& /*data*/) const {
  return parameters;
}

namespace {

std::shared_ptr<const ModelOptions> read(const nlohmann::json& j) {
  auto o = std::make_shared<ProfileOptions>();
  o->parameters = j.at("parameters").get<std::int64_t>();
  o->compute_seconds = j.at("compute_time").get<double>();
  return o;
}

const ModelRegistration registered{{
    .name = "profile",
    .doc = "No math: a parameter count and a compute time per batch, for timing what-ifs.",
    .keys = {spec::required("parameters", spec::integer().ge(1),
                            "Number of model parameters (fp32 each)."),
             spec::defaulted("compute_time", spec::time().gt(0), "10ms",
                             "Compute time of one batch gradient.")},
    .facts = {.needs_data = false, .has_values = false, .has_loss = false},
    .read = read,
    .order = 8,
}};

}  // namespace
}  // namespace dlsim::models
