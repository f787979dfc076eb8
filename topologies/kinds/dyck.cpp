// Topology kind `dyck`: the Dyck graph, 32 nodes, cubic (topologies/registry.hpp). Used by
// AdaGossip (Aketi et al. 2024) as a sparse, well-connected 3-regular graph. Adjacency
// spectrum 3, sqrt(5) (x6), 1 (x9), -1 (x9), -sqrt(5) (x6), -3.
#include "topologies/generators.hpp"
#include "topologies/registry.hpp"

namespace dlsim::topo {
namespace dyck_topology {

const TopologyRegistration registered{{
    .name = "dyck",
    .doc = "The Dyck graph: 32 nodes, 3-regular, 48 edges, girth 6 (LCF notation [5, -5, 13, "
           "-13]^8: node i ~ i ± 1 and i + the LCF entry of i mod 4, mod 32); workers must be "
           "32. Adjacency eigenvalues ±3, ±sqrt(5) (6 times each), ±1 (9 times each).",
    .facts = {.vertex_transitive = true},
    .make = [](const TopologyParams& p) { return GraphSchedule::fixed(p, dyck_graph(p.nodes)); },
}};

}  // namespace dyck_topology
}  // namespace dlsim::topo
