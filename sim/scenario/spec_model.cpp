// The keys of the `model` section (docs/design.md §4): the objective each worker optimizes,
// one variant per registered model kind with the keys it declares
// (models/objectives/registry.hpp). Part of the key table (spec.cpp).
#include "models/objectives/registry.hpp"
#include "sim/scenario/spec_sections.hpp"

namespace dlsim::sim::spec::sections {

Object model_section() {
  std::vector<Variant> variants;
  for (const models::ModelInfo* info : models::listed_models())
    variants.push_back({info->name, info->doc, info->keys});
  return with_kinds(kind_key("kind", "least-squares", "The objective each worker optimizes."), {},
                    std::move(variants));
}

}  // namespace dlsim::sim::spec::sections
