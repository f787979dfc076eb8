// Algorithm `choco-sgd`: CHOCO-SGD (Koloskova, Stich, Jaggi, "Decentralized Stochastic
// Optimization and Gossip Algorithms with Compressed Communication", ICML 2019;
// docs/algorithms.md §3): public copies x̂ updated by compressed differences
// q_i = C(x_i − x̂_i); x_i ← x_i + γ Σ_j w_ij (x̂_j − x̂_i).
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/gossip_keys.hpp"
#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim::sim {
namespace choco_sgd_algorithm {

const AlgorithmRegistration registered{{
    .name = "choco-sgd",
    .doc = "CHOCO-SGD (Koloskova et al. 2019): gossip on public copies x_hat with compressed "
           "differences q = C(x - x_hat); x <- x + gamma sum_j w_ij (x_hat_j - x_hat_i). "
           "Undirected graphs (static, or time-varying with per-neighbour copies) with doubly "
           "stochastic weights.",
    .keys = {consensus_step_key(), choco_order_key()},
    // x, momentum, gradient, a decoded message (none with top-k), the difference x - x_hat
    .facts = choco_family_facts("choco-sgp (compressed push-sum)",
                                {.worker_vectors = 5, .decoded_vector = true}),
    .read = ChocoOptions::read,
    .check = nullptr,
    .launch = [](Engine& e, Training& t) { launch_choco(e, t, {.adaptive = false}); },
}};

}  // namespace choco_sgd_algorithm
}  // namespace dlsim::sim
