// The keys of the `topology` section (DESIGN.md §4, §9): the gossip graph of
// decentralized algorithms and its mixing weights. Part of the key table (spec.cpp).
#include "sim/scenario/spec_sections.hpp"

namespace dlsim::sim::spec::sections {

using nlohmann::json;

Object topology_section() {
  const auto dims = [](int at_least) {
    return required("dims", array_of(integer().ge(at_least)).nonempty(),
                    "Size of each dimension; the product must equal workers.");
  };  // the same bound for torus and grid: the reference documents the key once
  // One definition for both kinds, so that the reference documents `p` once.
  const Key probability = defaulted("p", number().ge(0).le(1), 0.1,
                                    "erdos-renyi: probability of each edge (> 0); small-world: "
                                    "probability that each lattice edge is rewired.");
  return with_kinds(
      kind_key("kind", "ring",
               "The communication graph of decentralized algorithms. Random kinds draw from "
               "the scenario's seed."),
      {defaulted("weights", one_of({"metropolis", "uniform", "max-degree"}), "metropolis",
                 "Mixing weights: metropolis 1/(1+max(d_i,d_j)), uniform 1/(d_i+1) (doubly "
                 "stochastic only on regular graphs), max-degree 1/(1+d_max); directed kinds "
                 "use them as column-stochastic push weights.")},
      {{"complete", "Every pair of nodes.", {}},
       {"star", "Node 0 ~ every other node.", {}},
       {"ring", "i ~ i+1 and i-1 (mod n).", {}},
       {"torus", "+-1 along each dimension with wrap-around (duplicates merged).", {dims(2)}},
       {"grid", "+-1 along each dimension, no wrap-around.", {dims(2)}},
       {"hypercube", "i ~ i xor 2^j; workers must be a power of 2.", {}},
       {"exponential", "i ~ i +- 2^k (mod n) for every 2^k < n.", {}},
       {"random-regular",
        "A uniformly random connected graph where every node has the same degree.",
        {defaulted("degree", integer().ge(1), 3,
                   "Degree of every node; workers x degree must be even.")}},
       {"erdos-renyi",
        "G(n, p): every edge independently with probability p, resampled until connected.",
        {probability}},
       {"small-world",
        "Watts-Strogatz: ring lattice with k neighbours, edges rewired with probability p, "
        "resampled until connected.",
        {defaulted("k", integer().ge(2), 4,
                   "Lattice neighbours of each node (even, k/2 per side)."),
         probability}},
       {"edge-list",
        "Undirected edges read from a file: one \"i j\" per line (ids 0..workers-1), # comments.",
        {required("path", string().nonempty(), "Path of the edge-list file.")}},
       {"one-peer-exponential",
        "Time-varying: in round t node i sends to i + 2^(t mod ceil(log2 n)) (mod n); weights 1/2.",
        {}},
       {"random-matching",
        "Time-varying: a fresh random perfect matching every round (workers even); weights 1/2.",
        {}},
       {"directed-ring", "Directed: i -> i+1 (mod n).", {}},
       {"directed-exponential", "Directed: i -> i + 2^k (mod n) for every 2^k < n.", {}}});
}

}  // namespace dlsim::sim::spec::sections
