// Topology kind `random-matching` (topologies/registry.hpp): round t is a uniformly
// random perfect matching drawn from (seed, t) alone (random_graphs.cpp), pairs
// average with weight 1/2; aperiodic (period 0). The union over all rounds is the
// complete graph, which every pair reaches with positive probability.
#include "topologies/generators.hpp"
#include "topologies/random_graphs.hpp"
#include "topologies/registry.hpp"

namespace dlsim::topo {
namespace random_matching_topology {

GraphSchedule make(const TopologyParams& p) {
  const int n = p.nodes;
  const std::uint64_t seed = p.seed;
  random_matching_graph(n, seed, 0);  // validates n
  return GraphSchedule::varying(
      p, false, 0, [n, seed](std::int64_t t) { return random_matching_graph(n, seed, t); },
      [n] { return complete_graph(n); });
}

const TopologyRegistration registered{{
    .name = "random-matching",
    .doc = "Time-varying: a fresh random perfect matching every round (workers even); "
           "weights 1/2.",
    .facts = {.time_varying = true},
    .make = make,
    .spectrum = random_matching_spectrum,
    .diameter_note = "a fresh matching every round",
}};

}  // namespace random_matching_topology
}  // namespace dlsim::topo
