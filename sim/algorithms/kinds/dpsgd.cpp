// Algorithm `dpsgd`: decentralized parallel SGD (Lian, Zhang, Zhang, Hsieh, Zhang, Liu,
// "Can Decentralized Algorithms Outperform Centralized Algorithms? A Case Study for
// Decentralized Parallel Stochastic Gradient Descent", NeurIPS 2017; docs/algorithms.md
// §3): local step, send the new model to the neighbours, x_i ← Σ_j w_ij x_j.
#include "sim/algorithms/algorithms.hpp"
#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim::sim {
namespace dpsgd_algorithm {

const AlgorithmRegistration registered{{
    .name = "dpsgd",
    .doc = "Decentralized parallel SGD: local step, then gossip with neighbours.",
    .keys = {},
    .facts = {.decentralized = true,
              .directed_graphs = true,  // any graph whose weights are doubly stochastic
              .weights = WeightsNeeded::doubly_stochastic,
              .node_failures = true,
              .compressed_messages = false,
              .min_workers = 2,
              // x, the mixed sum, gradient, momentum, a decoded message (dpsgd_node.hpp)
              .memory = {.worker_vectors = 3.5}},
    .check = nullptr,
    .launch = launch_dpsgd,
}};

}  // namespace dpsgd_algorithm
}  // namespace dlsim::sim
