// Topology kind `complete`: every pair of nodes (topologies/registry.hpp).
#include "topologies/generators.hpp"
#include "topologies/registry.hpp"

namespace dlsim::topo {
namespace complete_topology {

const TopologyRegistration registered{{
    .name = "complete",
    .doc = "Every pair of nodes.",
    .facts = {.vertex_transitive = true, .circulant = true},
    .make =
        [](const TopologyParams& p) { return GraphSchedule::fixed(p, complete_graph(p.nodes)); },
}};

}  // namespace complete_topology
}  // namespace dlsim::topo
