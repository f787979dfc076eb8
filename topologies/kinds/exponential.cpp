// Topology kind `exponential`: i ~ i ± 2^k (mod n) for every 2^k < n (Ying et al.,
// "Exponential Graph is Provably Efficient for Decentralized Deep Training", 2021)
// (topologies/registry.hpp).
#include "topologies/generators.hpp"
#include "topologies/registry.hpp"

namespace dlsim::topo {
namespace exponential_topology {

const TopologyRegistration registered{{
    .name = "exponential",
    .doc = "i ~ i +- 2^k (mod n) for every 2^k < n.",
    .facts = {.vertex_transitive = true, .circulant = true},
    .make =
        [](const TopologyParams& p) { return GraphSchedule::fixed(p, exponential_graph(p.nodes)); },
}};

}  // namespace exponential_topology
}  // namespace dlsim::topo
