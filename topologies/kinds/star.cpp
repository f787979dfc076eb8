// Topology kind `star`: node 0 linked to every other node (topologies/registry.hpp).
#include "topologies/generators.hpp"
#include "topologies/registry.hpp"

namespace dlsim::topo {
namespace star_topology {

const TopologyRegistration registered{{
    .name = "star",
    .doc = "Node 0 ~ every other node.",
    .make = [](const TopologyParams& p) { return GraphSchedule::fixed(p, star_graph(p.nodes)); },
}};

}  // namespace star_topology
}  // namespace dlsim::topo
