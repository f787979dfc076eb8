// The keys of the `topology` section (docs/design.md §4, §9): the gossip graph of
// decentralized algorithms and its mixing weights: the common key `weights`, and one
// variant per registered topology kind with the keys it declares
// (topologies/registry.hpp). Part of the key table (spec.cpp).
#include "sim/scenario/spec_sections.hpp"
#include "topologies/registry.hpp"

namespace dlsim::sim::spec::sections {

using nlohmann::json;

Object topology_section() {
  std::vector<Variant> variants;
  for (const topo::TopologyInfo* info : topo::TopologyRegistry::instance().all())
    variants.push_back({info->name, info->doc, info->keys});
  return with_kinds(
      kind_key("kind", "ring",
               "The communication graph of decentralized algorithms. Random kinds draw from "
               "the scenario's seed."),
      {defaulted("weights", one_of({"metropolis", "uniform", "max-degree"}), "metropolis",
                 "Mixing weights: metropolis 1/(1+max(d_i,d_j)), uniform 1/(d_i+1) (doubly "
                 "stochastic only on regular graphs), max-degree 1/(1+d_max); directed kinds "
                 "use them as column-stochastic push weights.")},
      std::move(variants));
}

}  // namespace dlsim::sim::spec::sections
