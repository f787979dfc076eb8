// to_scenario, section `topology`: the typed TopologySpec (the kind reads its own keys,
// topologies/registry.hpp), the kind's cross-key checks (e.g. lattice sizes against the
// number of workers), and (topology_build.cpp) the graph against the algorithm.
#include "sim/scenario/to_scenario_sections.hpp"
#include "sim/scenario/topology_build.hpp"
#include "topologies/registry.hpp"
#include "topologies/topology_error.hpp"

namespace dlsim::sim::scenario_sections {

using nlohmann::json;

void read_topology(const json& j, TopologySpec& t) {
  t.kind = j.at("kind").get<std::string>();
  t.weights = j.at("weights").get<std::string>();
  const topo::TopologyInfo& info = topo::topology_info(t.kind);
  if (info.read) t.options = info.read(j);
}

// The kind's own cross-key checks here (lattice sizes, with indexed paths); everything
// else about the graph, and whether its weights suit the algorithm, in topology_build.cpp.
void check_topology(const Scenario& s) {
  if (s.decentralized()) check_topology_for_algorithm(s);
}

void check_topology_kind(const Scenario& s) {
  const topo::TopologyInfo& info = topo::topology_info(s.topology.kind);
  if (!info.check) return;
  try {
    info.check(topology_params(s));
  } catch (const topo::TopologyError& e) {
    throw InputError(topology_error_path(e), e.what());
  }
}

}  // namespace dlsim::sim::scenario_sections
