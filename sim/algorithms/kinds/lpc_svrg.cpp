// Algorithm `lpc-svrg`: SVRG with low-precision inner messages (Yu, Wu, Huang, "Exploring
// Fast and Communication-Efficient Algorithms in Large-scale Distributed Networks",
// AISTATS 2019, arXiv 1901.08924; docs/algorithms.md §1.1, §2): each inner message is
// C_lpc(v_i), or C_lpc(∇f_i(x;B) − ∇f_i(ỹ;B)) with μ in full precision.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/svrg_keys.hpp"
#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim::sim {
namespace lpc_svrg_algorithm {

using namespace spec;

const AlgorithmRegistration registered{{
    .name = "lpc-svrg",
    .doc = "LPC-SVRG (Yu, Wu, Huang, AISTATS 2019): svrg with low-precision (lpc) inner "
           "messages.",
    .keys =
        svrg_keys() +
        std::vector<Key>{snapshot_key(), quantize_snapshot_key(),
                         defaulted("quantize", one_of({"vr-gradient", "difference"}), "vr-gradient",
                                   "What the inner message carries: the whole v_i "
                                   "(vr-gradient) or only grad f_i(x;B) - grad "
                                   "f_i(snapshot;B), mu added in full precision "
                                   "(difference).")},
    .facts = {.memory = {.worker_vectors = 12,
                         .server_vectors = 5,
                         .shard_gradients = true},  // as svrg
              .default_compressor = kLowPrecisionCompressor},
    .read = SvrgFamilyOptions::read,
    .check = check_svrg_family,
    .launch = launch_svrg,
}};

}  // namespace lpc_svrg_algorithm
}  // namespace dlsim::sim
