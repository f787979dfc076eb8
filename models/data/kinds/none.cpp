// Data source `none`: no data, for models that need none (their facts say needs_data
// false); data.source defaults to it for them (sim/scenario/spec_data.cpp).
#include "models/data/registry.hpp"

namespace dlsim::models {
namespace none_source {

const DataSourceRegistration registered{{
    .name = "none",
    .doc = "No data (model.kind profile or consensus).",
    .facts = {.has_data = false},
    .order = 5,
}};

}  // namespace none_source
}  // namespace dlsim::models
