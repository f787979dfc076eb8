// Algorithm `adag-sgp`: choco-sgp with AdaGossip's adaptive step made scale-free and
// banded, on the sender's side (docs/algorithms.md §3): γ_jk = min(γ · clamp((ρ_j + ε) /
// (√v̂_jk + ε), 1/c, 1), 1), v_j an EMA of j's decoded messages q_j ⊙ q_j,
// ρ_j = √(mean_k v̂_jk); per-coordinate push-sum weights.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/gossip_keys.hpp"
#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim::sim {
namespace adag_sgp_algorithm {

using namespace spec;

const AlgorithmRegistration registered{{
    .name = "adag-sgp",
    .doc = "choco-sgp with an adaptive per-coordinate step on the sender's side, gamma_jk = "
           "min(gamma * clamp((rho_j + epsilon) / (sqrt(v_hat_jk) + epsilon), 1/step_band, 1), "
           "1), v_j an EMA of j's decoded messages q_j*q_j, rho_j = sqrt(mean_k v_hat_jk) "
           "(AdaGossip's step made scale-free and banded to [gamma/step_band, gamma]); "
           "per-coordinate weights w (their differences compressed like x, so messages carry "
           "two vectors) and z = x / w elementwise.",
    .keys = {consensus_step_key(),
             defaulted("beta", number().ge(0).lt(1), 0.999, "EMA factor of q*q."),
             defaulted("epsilon", number().gt(0), 1e-8, "Added to rho and sqrt(v_hat)."),
             defaulted("step_band", number().ge(1), 4.0,
                       "c: each sender's per-coordinate steps lie in [gamma/c, gamma]; the "
                       "push-sum weights then stay within a factor c of plain push-sum's (1 = "
                       "one step for every coordinate).")},
    .facts = {.decentralized = true,
              .directed_graphs = true,
              .weights = WeightsNeeded::column_stochastic,
              .min_workers = 2,
              .gossip_memory = {GossipMemory::Layout::push_sum, 3},
              // choco-sgp's, with per-coordinate weights w and their differences and EMAs
              .memory = {.worker_vectors = 12}},
    .read = PushSumOptions::read,
    .check = nullptr,
    .launch = [](Engine& e, Training& t) { launch_compressed_push_sum(e, t, true); },
}};

}  // namespace adag_sgp_algorithm
}  // namespace dlsim::sim
