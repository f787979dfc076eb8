// Algorithm `sgp`: stochastic gradient push (Assran, Loizou, Ballas, Rabbat, "Stochastic
// Gradient Push for Distributed Deep Learning", ICML 2019; docs/algorithms.md §3):
// push-sum of (x_i, w_i) with column-stochastic weights; the model is z_i = x_i / w_i.
#include "sim/algorithms/algorithms.hpp"
#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim::sim {
namespace sgp_algorithm {

const AlgorithmRegistration registered{{
    .name = "sgp",
    .doc = "Stochastic gradient push (Assran et al. 2019): push-sum of (x, w) with the "
           "column-stochastic push weights of any graph (directed, time-varying); metrics use "
           "z = x / w. Messages are fp32 (compressor none).",
    .keys = {},
    .facts = {.decentralized = true,
              .directed_graphs = true,
              .weights = WeightsNeeded::column_stochastic,
              .node_failures = true,
              .compressed_messages = false,
              .min_workers = 2,
              // x, z, the (x, w) pair sent and mixed, gradient, momentum, received (sgp_node.hpp)
              .memory = {.worker_vectors = 7.5}},
    .check = nullptr,
    .launch = launch_sgp,
}};

}  // namespace sgp_algorithm
}  // namespace dlsim::sim
