// The directed static kinds, for push-sum algorithms with column-stochastic weights
// (topologies/registry.hpp): `directed-ring` i -> i+1 and `directed-exponential`
// i -> i + 2^k (mod n) for every 2^k < n.
#include "topologies/generators.hpp"
#include "topologies/registry.hpp"

namespace dlsim::topo {
namespace {

const TopologyRegistration ring{{
    .name = "directed-ring",
    .doc = "Directed: i -> i+1 (mod n).",
    .facts = {.directed = true, .vertex_transitive = true, .circulant = true},
    .make =
        [](const TopologyParams& p) {
          return GraphSchedule::fixed(p, directed_ring_graph(p.nodes));
        },
}};

const TopologyRegistration exponential{{
    .name = "directed-exponential",
    .doc = "Directed: i -> i + 2^k (mod n) for every 2^k < n.",
    .facts = {.directed = true, .vertex_transitive = true, .circulant = true},
    .make =
        [](const TopologyParams& p) {
          return GraphSchedule::fixed(p, directed_exponential_graph(p.nodes));
        },
}};

}  // namespace
}  // namespace dlsim::topo
