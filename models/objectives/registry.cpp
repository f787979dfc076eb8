// The model registry's listings.
#include "models/objectives/registry.hpp"

#include <algorithm>
#include <tuple>

namespace dlsim::models {

std::vector<const ModelInfo*> listed_models() {
  std::vector<const ModelInfo*> infos = ModelRegistry::instance().all();
  std::stable_sort(infos.begin(), infos.end(), [](const auto* a, const auto* b) {
    return std::tie(a->order, a->name) < std::tie(b->order, b->name);
  });
  return infos;
}

std::vector<std::string> model_kinds_where(const std::function<bool(const ModelFacts&)>& pred) {
  std::vector<std::string> names;
  for (const ModelInfo* info : ModelRegistry::instance().all())
    if (pred(info->facts)) names.push_back(info->name);
  return names;
}

}  // namespace dlsim::models
