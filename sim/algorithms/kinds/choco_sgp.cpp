// Algorithm `choco-sgp`: compressed push-sum (Taheri, Mokhtari, Hassani, Pedarsani,
// "Quantized Decentralized Stochastic Learning over Directed Graphs", ICML 2020, with
// CHOCO's consensus step; docs/algorithms.md §3): public copies of the push-sum numerator
// and weight, x_i ← x_i + γ (Σ_j P_ij x̂_j − x̂_i), z_i = x_i / w_i.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/gossip_keys.hpp"
#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim::sim {
namespace choco_sgp_algorithm {

using namespace spec;

const AlgorithmRegistration registered{{
    .name = "choco-sgp",
    .doc = "Compressed push-sum (Taheri et al. 2020 with CHOCO's consensus step): public "
           "copies of the numerator x and the scalar weight w, compressed differences q = C(x "
           "- x_hat) (the weight's in fp32), x <- x + gamma (sum_j P_ij x_hat_j - x_hat_i) "
           "with the column-stochastic push weights P of any graph (directed, time-varying); "
           "metrics use z = x / w (sim/algorithms/compressed_push_sum.hpp).",
    .keys = {defaulted("consensus_step", number().gt(0).le(1), 1.0,
                       "gamma in (0, 1] (above 1 the push weights turn negative).")},
    .facts = {.decentralized = true,
              .directed_graphs = true,
              .weights = WeightsNeeded::column_stochastic,
              .min_workers = 2,
              .gossip_memory = {GossipMemory::Layout::push_sum, 1},
              // x, z = x / w, gradient, momentum, q, differences, deltas (compressed_push_sum.hpp)
              .memory = {.worker_vectors = 8.5}},
    .read = PushSumOptions::read,
    .check = nullptr,
    .launch = [](Engine& e, Training& t) { launch_compressed_push_sum(e, t, false); },
}};

}  // namespace choco_sgp_algorithm
}  // namespace dlsim::sim
