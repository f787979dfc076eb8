// Topology kind `ring`: i ~ i ± 1 (mod n) (topologies/registry.hpp).
#include "topologies/generators.hpp"
#include "topologies/registry.hpp"

namespace dlsim::topo {
namespace ring_topology {

const TopologyRegistration registered{{
    .name = "ring",
    .doc = "i ~ i+1 and i-1 (mod n).",
    .facts = {.vertex_transitive = true, .circulant = true},
    .make = [](const TopologyParams& p) { return GraphSchedule::fixed(p, ring_graph(p.nodes)); },
}};

}  // namespace ring_topology
}  // namespace dlsim::topo
