// Algorithm `svrg`: SVRG (Johnson, Zhang, "Accelerating Stochastic Gradient Descent using
// Predictive Variance Reduction", NeurIPS 2013), prox-SVRG when model.l1 > 0 (Xiao,
// Zhang, SIAM J. Optim. 2014); docs/algorithms.md §2: per epoch a snapshot gradient μ,
// then v_i = ∇f_i(x;B) − ∇f_i(ỹ;B) + μ, x ← prox_{ηR}(x − η mean_i v_i).
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/svrg_keys.hpp"
#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim::sim {
namespace svrg_algorithm {

const AlgorithmRegistration registered{{
    .name = "svrg",
    .doc = "SVRG (Johnson & Zhang 2013), prox-SVRG when model.l1 > 0 (Xiao & Zhang 2014): per "
           "epoch a full-precision snapshot gradient mu, then epoch_length steps with v_i = "
           "grad f_i(x;B) - grad f_i(snapshot;B) + mu.",
    .keys = svrg_keys() + std::vector<spec::Key>{snapshot_key()},
    // x, snapshot, mu, gradients at x and at the snapshot, the message, the mean, the
    // step, momentum, the iterate sum, the snapshot pass's partial sums (svrg.cpp)
    .facts = {.memory = {.worker_vectors = 12, .server_vectors = 5, .shard_gradients = true}},
    .read = SvrgFamilyOptions::read,
    .check = check_svrg_family,
    .launch = launch_svrg,
}};

}  // namespace svrg_algorithm
}  // namespace dlsim::sim
