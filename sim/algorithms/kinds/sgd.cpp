// Algorithm `sgd`: centralized synchronous mini-batch SGD (docs/algorithms.md §2):
// g_i = ∇f_i(x; B_i) on every worker, x ← x − η·mean_i C(g_i) (with momentum), the mean
// formed by algorithm.collective.
#include "sim/algorithms/centralized.hpp"
#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim::sim {
namespace sgd_algorithm {

const AlgorithmRegistration registered{{
    .name = "sgd",
    .doc = "Centralized synchronous mini-batch SGD.",
    .keys = {collective_key(
        "How gradients are combined: a parameter server (an extra node with id = workers; the "
        "model goes back in fp32), allgather, or ring all-reduce (all-reducible compressors "
        "only: none, fp16; no error feedback).")},
    // x, gradient, momentum (and the mean off the server); the server: x, momentum, sum,
    // a received vector, the mean
    .facts = {.memory = {.worker_vectors = 3.5, .server_vectors = 5}},
    .check = nullptr,
    .launch = launch_sgd,
    .simulated_workers = sgd_simulated_workers,
}};

}  // namespace sgd_algorithm
}  // namespace dlsim::sim
