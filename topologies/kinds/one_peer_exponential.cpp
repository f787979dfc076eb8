// Topology kind `one-peer-exponential` (topologies/registry.hpp): with τ = ⌈log2 n⌉,
// in round t node i sends to i + 2^(t mod τ) (mod n), weights 1/2 self, 1/2 incoming
// (period τ); for n = 2^τ the product of τ consecutive rounds is exactly (1/n)11ᵀ
// (Assran et al., "Stochastic Gradient Push", ICML 2019; Ying et al., "Exponential
// Graph is Provably Efficient for Decentralized Deep Training", NeurIPS 2021).
#include "topologies/generators.hpp"
#include "topologies/registry.hpp"
#include "topologies/topology_error.hpp"

namespace dlsim::topo {
namespace one_peer_exponential_topology {

int ceil_log2(int n) {
  int tau = 0;
  while ((std::int64_t(1) << tau) < n) ++tau;
  return tau;
}

int shift_of_round(std::int64_t t, std::int64_t period, int n) {
  return int((std::int64_t(1) << (t % period)) % n);
}

GraphSchedule make(const TopologyParams& p) {
  if (p.nodes < 2) throw TopologyError("workers", "one-peer-exponential needs at least 2 nodes");
  const int n = p.nodes;
  const std::int64_t period = ceil_log2(n);
  return GraphSchedule::varying(
      p, true, period,
      [n, period](std::int64_t t) {
        return circulant_graph(n, {shift_of_round(t, period, n)}, true);
      },
      [n, period] {
        std::vector<int> shifts;
        for (std::int64_t t = 0; t < period; ++t) shifts.push_back(shift_of_round(t, period, n));
        return circulant_graph(n, shifts, true);
      });
}

const TopologyRegistration registered{{
    .name = "one-peer-exponential",
    .doc = "Time-varying: in round t node i sends to i + 2^(t mod ceil(log2 n)) (mod n); "
           "weights 1/2.",
    .facts = {.directed = true, .time_varying = true, .vertex_transitive = true, .circulant = true},
    .make = make,
}};

}  // namespace one_peer_exponential_topology
}  // namespace dlsim::topo
