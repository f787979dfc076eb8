// Algorithm `ef-sgd`: sgd with error feedback (Karimireddy, Rebjock, Stich, Jaggi, "Error
// Feedback Fixes SignSGD and other Gradient Compression Schemes", ICML 2019;
// docs/algorithms.md §1, §2): e ← e + g; q = C(e); e ← e − q; send q. Defaults to the
// scaled sign compressor (EF-signSGD).
#include "sim/algorithms/centralized.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {
namespace ef_sgd_algorithm {

void check(const Scenario& s) {
  if (!s.algorithm.compressor.error_feedback) {
    throw InputError("algorithm.compressor.error_feedback",
                     "algorithm ef-sgd is sgd with error feedback; must be true (or absent)");
  }
}

const AlgorithmRegistration registered{{
    .name = "ef-sgd",
    .doc = "sgd with error feedback (Karimireddy et al. 2019): compressor.error_feedback "
           "defaults to and must be true; compressor.kind defaults to sign (EF-signSGD).",
    .keys = {collective_key(aggregate_collective_doc())},
    .facts = {.memory = {.worker_vectors = 3.5, .server_vectors = 5},  // as sgd
              .default_compressor = "sign",
              .default_error_feedback = true},
    .check = check,
    .launch = launch_sgd,
    .simulated_workers = sgd_simulated_workers,
}};

}  // namespace ef_sgd_algorithm
}  // namespace dlsim::sim
