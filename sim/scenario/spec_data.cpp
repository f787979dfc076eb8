// The keys of the `data` section (docs/design.md §4): where samples come from, one variant
// per registered data source with the keys it declares followed by the keys every source
// with data shares (models/data/registry.hpp: test split, feature scaling, partition).
// data.source defaults to the source without data for models that need none. Part of the
// key table (spec.cpp).
#include "models/data/registry.hpp"
#include "models/objectives/registry.hpp"
#include "sim/scenario/messages.hpp"
#include "sim/scenario/spec_sections.hpp"

namespace dlsim::sim::spec::sections {

using nlohmann::json;

Object data_section() {
  constexpr const char* kDefault = "synthetic-regression";
  const std::vector<std::string> dataless =
      models::model_kinds_where([](const models::ModelFacts& f) { return !f.needs_data; });
  const std::string none = models::no_data_source();
  std::vector<Variant> variants;
  for (const models::DataSourceInfo* info : models::listed_data_sources()) {
    variants.push_back(
        {info->name, info->doc,
         info->facts.has_data ? info->keys + models::data_common_keys() : info->keys});
  }
  Object data =
      with_kinds(kind_key("source", kDefault,
                          "Where samples come from; " + none + " for models that need no data (" +
                              messages::join(dataless, ", ") + ")."),
                 {}, std::move(variants));
  data.discriminator->dynamic = [none](const json& root) {
    const json kind = lookup(root, {"model", "kind"});
    const models::ModelInfo* model =
        kind.is_string() ? models::ModelRegistry::instance().find(kind.get<std::string>())
                         : nullptr;
    return json(model && !model->facts.needs_data ? none : kDefault);
  };
  data.discriminator->default_doc =
      none + " when model.kind is " + messages::join(dataless, " or ") + ", else " + kDefault;
  return data;
}

}  // namespace dlsim::sim::spec::sections
