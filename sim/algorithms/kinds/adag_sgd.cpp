// Algorithm `adag-sgd`: AdaGossip (Aketi, Hashemi, Roy, "AdaGossip: Adaptive Consensus
// Step-size for Decentralized Deep Learning with Communication Compression", arXiv
// 2404.05919, 2024; docs/algorithms.md §3): CHOCO-SGD whose consensus step is per
// coordinate, γ_i = min(γ / (√v̂_i + ε), 1), v_i an EMA of r_i ⊙ r_i with bias correction.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/gossip_keys.hpp"
#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim::sim {
namespace adag_sgd_algorithm {

using namespace spec;

const AlgorithmRegistration registered{{
    .name = "adag-sgd",
    .doc = "AdaG-SGD (Aketi, Hashemi, Roy 2024): choco-sgd with a per-coordinate consensus "
           "step min(gamma / (sqrt(v_hat) + epsilon), 1), v an EMA of r*r with bias "
           "correction.",
    .keys = {consensus_step_key(), choco_order_key(),
             defaulted("beta", number().ge(0).lt(1), 0.999, "EMA factor of r*r."),
             defaulted("epsilon", number().gt(0), 1e-8, "Added to sqrt(v_hat).")},
    // choco-sgd's and the EMA v of r*r
    .facts = choco_family_facts("adag-sgp (compressed push-sum with adaptive steps)",
                                {.worker_vectors = 6}),
    .read = ChocoOptions::read,
    .check = nullptr,
    .launch = [](Engine& e, Training& t) { launch_choco(e, t, {.adaptive = true}); },
}};

}  // namespace adag_sgd_algorithm
}  // namespace dlsim::sim
