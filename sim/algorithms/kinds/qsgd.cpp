// Algorithm `qsgd`: sgd whose gradients travel through the QSGD quantizer (Alistarh,
// Grubic, Li, Tomioka, Vojnovic, "QSGD: Communication-Efficient SGD via Gradient
// Quantization and Encoding", NeurIPS 2017; docs/algorithms.md §1, §2).
#include "sim/algorithms/centralized.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {
namespace qsgd_algorithm {

void check(const Scenario& s) {
  const std::string& compressor = s.algorithm.compressor.kind;
  if (compressor != "qsgd") {
    throw InputError("algorithm.compressor.kind",
                     "algorithm qsgd is sgd with the qsgd compressor; must be \"qsgd\" (or "
                     "absent), got \"" +
                         compressor + "\"");
  }
}

const AlgorithmRegistration registered{{
    .name = "qsgd",
    .doc = "sgd with the qsgd compressor (Alistarh et al. 2017): compressor.kind defaults to "
           "and must be qsgd.",
    .keys = {collective_key(aggregate_collective_doc())},
    .facts = {.memory = {.worker_vectors = 3.5, .server_vectors = 5},  // as sgd
              .default_compressor = "qsgd"},
    .check = check,
    .launch = launch_sgd,
    .simulated_workers = sgd_simulated_workers,
}};

}  // namespace qsgd_algorithm
}  // namespace dlsim::sim
