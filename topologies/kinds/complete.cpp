// Topology kind `complete`: every pair of nodes (topologies/registry.hpp).
#include "topologies/generators.hpp"
#include "topologies/registry.hpp"

namespace dlsim::topo {
namespace {

const TopologyRegistration registered{{
    .name = "complete",
    .doc = "Every pair of nodes.",
    .facts = {.vertex_transitive = true, .circulant = true},
    .make =
        [](const TopologyParams& p) { return GraphSchedule::fixed(p, complete_graph(p.nodes)); },
}};

}  // namespace
}  // namespace dlsim::topo
