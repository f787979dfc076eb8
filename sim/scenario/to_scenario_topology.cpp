// to_scenario, section `topology`: the typed TopologySpec, lattice sizes against the
// number of workers, and (topology_build.cpp) the graph against the algorithm.
#include "sim/scenario/messages.hpp"
#include "sim/scenario/to_scenario_sections.hpp"
#include "sim/scenario/topology_build.hpp"

namespace dlsim::sim::scenario_sections {

using messages::index_path;
using nlohmann::json;

void read_topology(const json& j, TopologySpec& t) {
  t.kind = j.at("kind").get<std::string>();
  t.weights = j.at("weights").get<std::string>();
  if (j.contains("dims")) t.dims = j.at("dims").get<std::vector<std::int64_t>>();
  if (j.contains("degree")) t.degree = j.at("degree").get<std::int64_t>();
  if (j.contains("p")) t.p = j.at("p").get<double>();
  if (j.contains("k")) t.k = j.at("k").get<std::int64_t>();
  if (j.contains("path")) t.path = j.at("path").get<std::string>();
}

// Lattice sizes here (with indexed paths); everything else about the graph, and
// whether its weights suit the algorithm, in topology_build.cpp.
void check_topology(const Scenario& s) {
  if (s.decentralized()) check_topology_for_algorithm(s);
}

void check_lattice_dims(const Scenario& s) {
  if (s.topology.kind != "torus" && s.topology.kind != "grid") return;
  const std::int64_t smallest = 2;  // torus and grid alike
  std::int64_t product = 1;
  bool too_large = false;
  for (std::size_t i = 0; i < s.topology.dims.size(); ++i) {
    const std::int64_t d = s.topology.dims[i];
    if (d < smallest) {
      throw InputError(index_path("topology.dims", i),
                       "must be >= " + std::to_string(smallest) + ", got " + std::to_string(d));
    }
    if (too_large || d > s.workers / product) {
      too_large = true;  // avoids overflow; the product already exceeds workers
    } else {
      product *= d;
    }
  }
  if (too_large || product != s.workers) {
    throw InputError(
        "topology.dims",
        "product of dims must equal workers (" + std::to_string(s.workers) + "), got " +
            messages::shown(json(s.topology.dims)) + " = " +
            (too_large ? "more than " + std::to_string(s.workers) : std::to_string(product)));
  }
}

}  // namespace dlsim::sim::scenario_sections
