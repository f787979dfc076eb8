// Topology kind `hypercube`: i ~ i xor 2^j, for 2^d nodes (topologies/registry.hpp).
#include "topologies/generators.hpp"
#include "topologies/registry.hpp"

namespace dlsim::topo {
namespace hypercube_topology {

const TopologyRegistration registered{{
    .name = "hypercube",
    .doc = "i ~ i xor 2^j; workers must be a power of 2.",
    .facts = {.vertex_transitive = true},
    .make =
        [](const TopologyParams& p) { return GraphSchedule::fixed(p, hypercube_graph(p.nodes)); },
}};

}  // namespace hypercube_topology
}  // namespace dlsim::topo
